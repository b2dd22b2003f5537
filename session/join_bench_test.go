package session

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// joinBenchWorld records n conversations both ways: a Claude Code
// transcript and a hook session each, with a command and its approval.
func joinBenchWorld(b *testing.B, n int) (*joinWorld, *FolderSource) {
	b.Helper()
	base := b.TempDir()
	w := &joinWorld{store: Open(filepath.Join(base, "proj", DirName)), cache: filepath.Join(base, "cache", "joined.json"),
		t0: time.Date(2026, 4, 2, 9, 0, 0, 0, time.UTC)}
	w.store.NoSync = true
	w.claude = ClaudeSource(filepath.Join(base, "claude"), filepath.Join(base, "cache", "claude.json"))
	t := &testing.T{}
	for i := 0; i < n; i++ {
		uuid := fmt.Sprintf("%08x-4f50-4617-8293-a4b5c6d7e8f9", i)
		c := &claudeLines{uuid: uuid, t0: w.t0.Add(time.Duration(i) * time.Minute)}
		var lines []string
		lines = append(lines, c.user(1, fmt.Sprintf("task %d", i)))
		for k := 0; k < 10; k++ {
			id := fmt.Sprintf("toolu_%d", k)
			lines = append(lines, c.say(2+k*3, fmt.Sprintf("m%d", k), "Working on it."), c.bash(3+k*3, fmt.Sprintf("m%d", k), id, "make test"),
				c.result(4+k*3, id, "ok", false))
		}
		w.appendTranscript(t, uuid, lines...)
		ev := transcript.New("", c.t0, &transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceClaudeHook, WorkingDirectory: "/proj"})
		ev.ConversationID = uuid
		wr, err := w.store.create(ev, c.t0)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < 10; k++ {
			id := fmt.Sprintf("toolu_%d", k)
			at := c.t0.Add(time.Duration(3+k*3) * time.Second)
			for _, e := range []*transcript.Event{
				transcript.New("", at, &transcript.BashStart{Command: "make test", Verdict: &transcript.Verdict{Decision: "allow"}}),
				transcript.New("", at, &transcript.BashRun{Command: "make test", ExitCode: exitOf(0), Stdout: "ok", DurationMS: 5}),
			} {
				e.CallID, e.ConversationID = id, uuid
				if err := wr.Append(e); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := wr.CloseAt(transcript.StatusComplete, c.t0.Add(time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
	if t.Failed() {
		b.Fatal("could not write the transcripts")
	}
	return w, w.claude
}

// BenchmarkJoinedList measures listing one row per conversation against
// listing the two records apart (the store's index and the Claude Code
// folder, both with warm caches): finding the joins reads no transcript.
func BenchmarkJoinedList(b *testing.B) {
	w, claude := joinBenchWorld(b, 500)
	ctx := context.Background()
	j := w.joined()
	if infos, err := j.List(ctx); err != nil || len(infos) != 500 {
		b.Fatal(err, len(infos))
	} else if err := j.Fill(ctx, infos); err != nil {
		b.Fatal(err)
	}
	b.Run("apart", func(b *testing.B) {
		for b.Loop() {
			metas, err := w.store.Sessions()
			if err != nil || len(metas) != 500 {
				b.Fatal(err)
			}
			infos, err := claude.List(ctx)
			if err != nil || len(infos) != 500 {
				b.Fatal(err)
			}
		}
	})
	b.Run("joined", func(b *testing.B) {
		for b.Loop() {
			infos, err := j.List(ctx)
			if err != nil || len(infos) != 500 || infos[0].Commands != 10 {
				b.Fatal(err, len(infos), infos[0].Commands)
			}
		}
	})
}

// BenchmarkJoinedRead measures reading a conversation joined against
// reading its two records one after the other.
func BenchmarkJoinedRead(b *testing.B) {
	w, claude := joinBenchWorld(b, 1)
	ctx := context.Background()
	j := w.joined()
	infos, err := j.List(ctx)
	if err != nil || len(infos) != 1 {
		b.Fatal(err)
	}
	id, native := infos[0].ID, infos[0].Parts[1].ID
	count := func(ev *transcript.Event) error { return nil }
	b.Run("apart", func(b *testing.B) {
		for b.Loop() {
			if err := claude.Read(ctx, id, count); err != nil {
				b.Fatal(err)
			}
			if _, err := w.store.ReadEvents(native, count); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("joined", func(b *testing.B) {
		for b.Loop() {
			if err := j.Read(ctx, id, count); err != nil {
				b.Fatal(err)
			}
		}
	})
}
