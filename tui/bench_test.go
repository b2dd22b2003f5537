package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/feed"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
)

// pump applies feed batches to the model until its frame holds text.
func pump(tb testing.TB, m Model, text string) Model {
	for !strings.Contains(m.View().Content, text) {
		msg, ok := m.feed.Wait().(feed.Msg)
		if !ok {
			tb.Fatalf("the feed ended before %q showed", text)
		}
		m = drive(m, msg)
	}
	return m
}

// BenchmarkFirstFrame is the time from building the model for `cuff watch
// FILE` to a frame that shows the session's last event: the tail is read
// first, the rest is indexed in the background.
func BenchmarkFirstFrame(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		path := filepath.Join(b.TempDir(), "s.jsonl")
		data := fixture.Big(n)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%dk_%dMB", n/1000, len(data)>>20), func(b *testing.B) {
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				info := session.Info{ID: "s", Path: path}
				m := New(Options{Context: ctx, Mode: ModeWatch, Watch: &info})
				m = drive(m, tea.WindowSizeMsg{Width: 120, Height: 40})
				m.openSession(info)
				go m.feed.Run()
				pump(b, m, "LAST-EVENT-MARKER")
				cancel()
			}
		})
	}
}

// BenchmarkAppendToScreen is the time from an append to the session file
// to a frame that shows the new event, while following (file
// notifications, reading from the last offset, layout and frame).
func BenchmarkAppendToScreen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, fixture.Big(1000), 0o600); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info := session.Info{ID: "s", Path: path}
	m := New(Options{Context: ctx, Mode: ModeWatch, Watch: &info})
	m = drive(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m.openSession(info)
	go m.feed.Run()
	m = pump(b, m, "LAST-EVENT-MARKER")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	seq := int64(1000)
	var total time.Duration
	for b.Loop() {
		seq++
		marker := fmt.Sprintf("APPENDED-%d", seq)
		ev := transcript.New(fixture.ID, time.Now(), &transcript.ChatTurn{Role: "assistant", Text: marker})
		ev.Seq = seq
		line := fixture.JSONL([]*transcript.Event{ev})
		start := time.Now()
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		m = pump(b, m, marker)
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/append")
}
