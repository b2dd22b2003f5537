package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
)

// nestedFixture is a synthetic Claude Code 2.1 session whose two
// sub-agents wrote files of their own (and the parent no agent_progress).
const (
	nestedFixture = "../transcript/claude/testdata/nested"
	nestedUUID    = "5e551011-aaaa-4bbb-8ccc-000000000001"
	nestedID      = "claude:" + nestedUUID
)

// nestedAgents are the sub-agents of the nested fixture by delegation.
var nestedAgents = map[string]string{"toolu_A": "a1f00d1", "toolu_B": "b2f00d2"}

// installNested copies the nested fixture into project of a Claude Code
// projects folder under home; with pad, the parent grows past what a listing reads
// (by records that carry nothing); without subs, the sub-agents' files are
// left out. It returns the parent's path.
func installNested(t testing.TB, home, project string, pad, subs bool) string {
	t.Helper()
	project = filepath.Join(home, "projects", project)
	parent := filepath.Join(project, nestedUUID+".jsonl")
	copyFile(t, filepath.Join(nestedFixture, nestedUUID+".jsonl"), parent)
	if subs {
		for _, a := range []string{"a1f00d1", "b2f00d2"} {
			name := filepath.Join(nestedUUID, "subagents", "agent-"+a+".jsonl")
			copyFile(t, filepath.Join(nestedFixture, name), filepath.Join(project, name))
		}
	}
	if pad {
		f, err := os.OpenFile(parent, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		snap := `{"type":"file-history-snapshot","messageId":"m","snapshot":{"messageId":"m","trackedFileBackups":{},"timestamp":"2026-03-05T10:00:13.000Z"},"isSnapshotUpdate":false,"pad":"` +
			strings.Repeat("x", 1000) + "\"}\n"
		for i := 0; i < 2*headBytes/len(snap); i++ {
			f.WriteString(snap)
		}
		f.Close()
		copyFile(t, parent, parent) // back to an old modification time
	}
	return parent
}

// readAll reads a session of a source whole.
func readAll(t *testing.T, src Source, id string) []*transcript.Event {
	t.Helper()
	var events []*transcript.Event
	if err := src.Read(context.Background(), id, func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	}); err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return events
}

// checkSubAgentsNested checks that the events hold the work of both
// sub-agents inside their delegations, numbered 1..N.
func checkSubAgentsNested(t *testing.T, events []*transcript.Event) {
	t.Helper()
	open := map[string]bool{}
	inside := map[string]int{}
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		if d, ok := ev.Body.(*transcript.Delegation); ok {
			open[ev.CallID] = d.Phase == transcript.PhaseStart
		}
		if ev.AgentID == transcript.MainAgent {
			continue
		}
		if nestedAgents[ev.ParentCallID] != ev.AgentID || !open[ev.ParentCallID] {
			t.Errorf("%s at seq %d: agent %q inside %q (open: %v)", ev.Type, ev.Seq, ev.AgentID, ev.ParentCallID, open[ev.ParentCallID])
		}
		inside[ev.AgentID]++
	}
	if inside["a1f00d1"] != 5 || inside["b2f00d2"] != 5 {
		t.Errorf("events by sub-agent %v, want 5 of each", inside)
	}
}

// TestClaudeSourceReadsSubAgentFiles lists and reads a Claude Code session
// whose sub-agents wrote their own files: Read nests their work, and the
// counts a listing shows (a small file is counted while skimming, a big
// one by Fill) include it and agree with Read.
func TestClaudeSourceReadsSubAgentFiles(t *testing.T) {
	for _, pad := range []bool{false, true} {
		t.Run(fmt.Sprintf("big=%v", pad), func(t *testing.T) {
			home := t.TempDir()
			installNested(t, home, "-home-dev-shop", pad, true)
			src := ClaudeSource(home, "")
			infos, err := src.List(context.Background())
			if err != nil || len(infos) != 1 || infos[0].ID != nestedID {
				t.Fatalf("list: %+v %v", infos, err)
			}
			if counted := infos[0].Events != Unknown; counted == pad {
				t.Errorf("counted while listing: %v (a big file's counts wait for Fill)", counted)
			}
			if err := src.Fill(context.Background(), infos); err != nil {
				t.Fatal(err)
			}
			events := readAll(t, src, nestedID)
			checkSubAgentsNested(t, events)
			var m Meta
			for _, ev := range events {
				m.add(ev)
			}
			in := infos[0]
			if in.Events != int64(len(events)) || in.Turns != m.Turns || in.ToolCalls != m.ToolCalls || in.Commands != m.Commands {
				t.Errorf("listed %d events, %d turns, %d tool calls, %d commands; read %d, %d, %d, %d",
					in.Events, in.Turns, in.ToolCalls, in.Commands, len(events), m.Turns, m.ToolCalls, m.Commands)
			}
			if m.Commands != 2 || m.ToolCalls != 1 { // the parent's go test and A's grep; B's Read
				t.Errorf("%d commands, %d tool calls: the sub-agents' are not counted", m.Commands, m.ToolCalls)
			}
		})
	}
}

// TestClaudeSourceWithoutSubAgentFiles reads the same session with its
// sub-agents' files gone: the parent's events only, no error.
func TestClaudeSourceWithoutSubAgentFiles(t *testing.T) {
	home := t.TempDir()
	installNested(t, home, "-home-dev-shop", false, false)
	src := ClaudeSource(home, "")
	infos, err := src.List(context.Background())
	if err != nil || len(infos) != 1 {
		t.Fatalf("list: %+v %v", infos, err)
	}
	events := readAll(t, src, nestedID)
	for _, ev := range events {
		if ev.AgentID != transcript.MainAgent {
			t.Errorf("%s of %s without its file", ev.Type, ev.AgentID)
		}
	}
	if infos[0].Events != int64(len(events)) || len(events) != 10 {
		t.Errorf("listed %d events, read %d, want 10", infos[0].Events, len(events))
	}
}

// TestClaudeSourceRecountsOldCache lists with a cache written before
// sub-agents' files were counted: its counts are computed again.
func TestClaudeSourceRecountsOldCache(t *testing.T) {
	home := t.TempDir()
	parent := installNested(t, home, "-home-dev-shop", false, true)
	fi, err := os.Stat(parent)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(home, "state", "claude.json")
	old := map[string]any{parent: map[string]any{"size": fi.Size(), "mtime_ns": fi.ModTime().UnixNano(),
		"info": Info{ID: nestedID, Source: ClaudeSourceName, Path: parent, Title: "old", Events: 10, Turns: 5}}}
	data, _ := json.Marshal(old)
	writeTestFile(t, cache, data)
	infos, err := ClaudeSource(home, cache).List(context.Background())
	if err != nil || len(infos) != 1 {
		t.Fatalf("list: %+v %v", infos, err)
	}
	if infos[0].Events != 20 || infos[0].Title == "old" {
		t.Errorf("from an old cache: %d events, title %q; want 20 counted again", infos[0].Events, infos[0].Title)
	}
	// The new entry is kept: a listing over a cache of this version takes it.
	os.Chmod(parent, 0)
	again, err := ClaudeSource(home, cache).List(context.Background())
	if err != nil || len(again) != 1 || again[0].Events != 20 {
		t.Errorf("from the cache: %+v %v", again, err)
	}
}

func writeTestFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestFollowFileNestsSubAgentFiles follows a finished session whose
// sub-agents wrote their own files: what is there when following starts
// comes as Read gives it.
func TestFollowFileNestsSubAgentFiles(t *testing.T) {
	home := t.TempDir()
	parent := installNested(t, home, "-home-dev-shop", false, true)
	want := readAll(t, ClaudeSource(home, ""), nestedID)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCollector()
	done := make(chan error, 1)
	go func() { done <- FollowFile(ctx, parent, c.add) }()
	items := c.wait(t, len(want))
	cancel()
	if err := <-done; err != nil {
		t.Errorf("follow: %v", err)
	}
	var got []*transcript.Event
	for _, it := range items {
		if it.Event == nil {
			t.Fatalf("follow reported %v", it.Err)
		}
		got = append(got, it.Event)
	}
	checkSubAgentsNested(t, got)
	for i := range want {
		a, _ := want[i].MarshalJSON()
		b, _ := got[i].MarshalJSON()
		if !bytes.Equal(a, b) {
			t.Errorf("event %d followed:\n%s\nread:\n%s", i, b, a)
		}
	}
}

// BenchmarkListClaudeSubAgents lists 300 small Claude Code sessions (each
// counted while skimming) with an empty cache, with and without their two
// sub-agents' files: the price of counting sub-agents' work in a listing.
func BenchmarkListClaudeSubAgents(b *testing.B) {
	for _, subs := range []bool{false, true} {
		b.Run(fmt.Sprintf("files=%v", subs), func(b *testing.B) {
			home := b.TempDir()
			for i := 0; i < 300; i++ {
				installNested(b, home, fmt.Sprintf("-home-dev-p%d", i), false, subs)
			}
			b.ResetTimer()
			for b.Loop() {
				infos, err := ClaudeSource(home, "").List(context.Background())
				if err != nil || len(infos) != 300 || infos[0].Events != map[bool]int64{false: 10, true: 20}[subs] {
					b.Fatal(err, len(infos), infos[0].Events)
				}
			}
		})
	}
}
