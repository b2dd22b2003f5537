package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// claudeFixture is a synthetic Claude Code transcript shipped with the decoder's tests.
const claudeFixture = "../transcript/claude/testdata/streamed.jsonl"

// codexFixture is a synthetic Codex rollout shipped with the decoder's tests.
const codexFixture = "../transcript/codex/testdata/rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(to, old, old)
}

func TestClaudeAndCodexSourcesListReadAndCache(t *testing.T) {
	home := t.TempDir()
	claudeDir := filepath.Join(home, "claude")
	codexDir := filepath.Join(home, "codex")
	uuid := "0b3c8a52-1111-4222-8333-444455556666"
	copyFile(t, claudeFixture, filepath.Join(claudeDir, "projects", "-home-dev-shop", uuid+".jsonl"))
	copyFile(t, claudeFixture, filepath.Join(claudeDir, "projects", "-home-dev-shop", uuid, "subagents", "agent-x.jsonl"))
	copyFile(t, codexFixture, filepath.Join(codexDir, "sessions", "2026", "01", "05", filepath.Base(codexFixture)))
	cache := filepath.Join(home, "state", "claude.json")

	src := ClaudeSource(claudeDir, cache)
	infos, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 {
		t.Fatalf("claude sessions %+v (the sub-agent file belongs to its parent)", infos)
	}
	in := infos[0]
	if !strings.HasPrefix(in.ID, "claude:") || in.Source != "claude" || in.Title == "" || in.WorkingDirectory == "" ||
		in.Started.IsZero() || !in.Updated.After(in.Started) || in.Live {
		t.Errorf("info %+v", in)
	}
	if in.Events <= 0 || in.Commands < 0 {
		t.Errorf("a small file is counted while skimming: %+v", in)
	}
	var events []*transcript.Event
	if err := src.Read(context.Background(), in.ID, func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if int64(len(events)) != in.Events || events[0].Type != transcript.TypeSessionStart {
		t.Errorf("read %d events, listed %d", len(events), in.Events)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("cache not written: %v", err)
	}
	// a new source over the same cache lists the same, without reading the file again
	os.Chmod(filepath.Join(claudeDir, "projects", "-home-dev-shop", uuid+".jsonl"), 0)
	again, err := ClaudeSource(claudeDir, cache).List(context.Background())
	if err != nil || len(again) != 1 || again[0].Title != in.Title || again[0].Events != in.Events {
		t.Errorf("from cache: %+v %v", again, err)
	}

	cx := CodexSource(codexDir, "")
	infos, err = cx.List(context.Background())
	if err != nil || len(infos) != 1 || !strings.HasPrefix(infos[0].ID, "codex:") || infos[0].Commands <= 0 {
		t.Fatalf("codex: %+v %v", infos, err)
	}
	if err := cx.Read(context.Background(), "codex:../../etc/passwd", func(*transcript.Event) error { return nil }); err == nil {
		t.Error("a path in an id was accepted")
	}
	if _, err := ClaudeSource(filepath.Join(home, "nowhere"), "").List(context.Background()); err != nil {
		t.Errorf("missing folder: %v", err)
	}
}

func TestFollowFileDecodesAClaudeTranscriptAsItGrows(t *testing.T) {
	data, err := os.ReadFile(claudeFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte{'\n'})
	path := filepath.Join(t.TempDir(), "0b3c8a52-1111-4222-8333-444455556666.jsonl")
	os.WriteFile(path, bytes.Join(lines[:3], nil), 0o600) // a snapshot, a hook progress line, the first prompt
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCollector()
	done := make(chan error, 1)
	go func() { done <- FollowFile(ctx, path, c.add) }()
	items := c.wait(t, 2) // the session start and the first prompt
	if items[0].Event.Type != transcript.TypeSessionStart || items[1].Event.Type != transcript.TypeChatTurn {
		t.Fatalf("first item %+v", items[0])
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	for _, l := range lines[3:] {
		f.Write(l)
	}
	f.Close()
	var want int
	foreignCount(t, data, &want)
	c.wait(t, want)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("follow: %v", err)
	}
}

// foreignCount counts the events the whole fixture decodes to.
func foreignCount(t *testing.T, data []byte, n *int) {
	t.Helper()
	src := ClaudeSource(t.TempDir(), "")
	p := filepath.Join(src.Root(), "p", "0b3c8a52-1111-4222-8333-444455556666.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, data, 0o600)
	src.Read(context.Background(), "claude:0b3c8a52-1111-4222-8333-444455556666", func(*transcript.Event) error {
		*n++
		return nil
	})
}

// BenchmarkListClaude1000 lists 1,000 Claude Code sessions of 1 MB each
// (1 GB) with an empty cache: heads and tails only.
func BenchmarkListClaude1000(b *testing.B) {
	data, err := os.ReadFile(claudeFixture)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(data), []byte{'\n'})
	var big bytes.Buffer
	for big.Len() < 1<<20 {
		for _, l := range lines[3:] {
			big.Write(bytes.TrimRight(l, "\n"))
			big.WriteByte('\n')
		}
	}
	dir := b.TempDir()
	for i := 0; i < 1000; i++ {
		p := filepath.Join(dir, "projects", fmt.Sprintf("proj%d", i%20), fmt.Sprintf("%08d-1111-4222-8333-444455556666.jsonl", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		var file bytes.Buffer
		file.Write(lines[0])
		file.Write(big.Bytes())
		if err := os.WriteFile(p, file.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		infos, err := ClaudeSource(dir, "").List(context.Background())
		if err != nil || len(infos) != 1000 {
			b.Fatal(err, len(infos))
		}
	}
}

func TestFileSourceReadsAnyTranscript(t *testing.T) {
	for _, fixture := range []string{claudeFixture, codexFixture} {
		path := filepath.Join(t.TempDir(), filepath.Base(fixture))
		copyFile(t, fixture, path)
		fs, err := NewFileSource(path)
		if err != nil {
			t.Fatal(err)
		}
		in := fs.Info()
		if !strings.Contains(in.ID, ":") || fs.Format().String() == "" {
			t.Errorf("%s: info %+v", fixture, in)
		}
		var n int
		if err := fs.Read(context.Background(), in.ID, func(*transcript.Event) error { n++; return nil }); err != nil || n < 5 {
			t.Errorf("%s: read %d events: %v", fixture, n, err)
		}
		c, stop := newCollector(), make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { fs.Follow(ctx, in.ID, c.add); close(stop) }()
		// A follower flushes but never closes the decoder (the file may still
		// grow), so events that only the end of a file completes may be missing.
		c.wait(t, n-1)
		cancel()
		<-stop
		if err := fs.Read(context.Background(), "claude:other", func(*transcript.Event) error { return nil }); err == nil {
			t.Error("another id was read")
		}
	}
}

func TestFollowFileTellsTheFormatOfAFileThatStartsEmpty(t *testing.T) {
	data, err := os.ReadFile(claudeFixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "0b3c8a52-1111-4222-8333-444455556666.jsonl")
	os.WriteFile(path, nil, 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCollector()
	go FollowFile(ctx, path, c.add)
	time.Sleep(50 * time.Millisecond)
	appendLine(t, path, string(data))
	items := c.wait(t, 5)
	for _, it := range items {
		if it.Event == nil || it.Event.Body == nil {
			t.Fatalf("a Claude line was read as a cuff event: %+v", it)
		}
	}
}

// TestForeignStatusIsNotCachedLive: a session counted while it was live is
// not listed as active once it has gone quiet, cache or no cache.
func TestForeignStatusIsNotCachedLive(t *testing.T) {
	home := t.TempDir()
	claudeDir := filepath.Join(home, "claude")
	file := filepath.Join(claudeDir, "projects", "-home-dev-shop", "0b3c8a52-1111-4222-8333-444455556666.jsonl")
	copyFile(t, claudeFixture, file)
	// Listed seconds after its last record was appended.
	appended := time.Date(2026, 3, 1, 10, 2, 10, 0, time.UTC)
	os.Chtimes(file, appended, appended)
	cache := filepath.Join(home, "state", "claude.json")
	src := ClaudeSource(claudeDir, cache)
	src.Now = func() time.Time { return appended.Add(5 * time.Second) }
	infos, err := src.List(context.Background())
	if err != nil || len(infos) != 1 || !infos[0].Live || infos[0].Status != transcript.StatusActive {
		t.Fatalf("a file just written: %+v %v", infos, err)
	}
	if err := src.Fill(context.Background(), infos); err != nil {
		t.Fatal(err)
	}
	later := ClaudeSource(claudeDir, cache)
	later.Now = func() time.Time { return appended.Add(2 * time.Hour) }
	infos, err = later.List(context.Background())
	if err != nil || len(infos) != 1 || infos[0].Live || infos[0].Status == transcript.StatusActive {
		t.Errorf("two hours later: %+v %v", infos, err)
	}
}

func TestTimestampInAnySpacing(t *testing.T) {
	want := time.Date(2026, 3, 1, 10, 2, 7, 0, time.UTC)
	for _, line := range []string{
		`{"type":"user","timestamp":"2026-03-01T10:02:07.000Z"}`,
		`{"type": "user", "timestamp": "2026-03-01T10:02:07.000Z"}`,
		`{"note":"the \"timestamp\" word","timestamp" :	"2026-03-01T10:02:07Z"}`,
	} {
		if got, ok := timestampIn([]byte(line)); !ok || !got.Equal(want) {
			t.Errorf("%s: %v %v", line, got, ok)
		}
	}
	for _, line := range []string{`{"timestamp":12}`, `{"timestamp"`, `{"x":"y"}`, `"timestamp": "not a time"`} {
		if got, ok := timestampIn([]byte(line)); ok {
			t.Errorf("%s: %v", line, got)
		}
	}
}

func FuzzTimestampIn(f *testing.F) {
	for _, s := range []string{`{"timestamp":"2026-03-01T10:02:07Z"}`, `{"timestamp": "x"}`, `"timestamp":`, `"timestamp" : "`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, ok := timestampIn(line); ok && got.IsZero() {
			t.Fatalf("found a zero time in %q", line)
		}
	})
}
