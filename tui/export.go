package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/internal/atomicfile"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/feed"
)

// Permissions of what an export writes.
const (
	exportDirMode  = 0o700
	exportFileMode = 0o600
)

// exportedMsg reports where an export went, or why it failed.
type exportedMsg struct {
	path string
	err  error
}

// exportCmd writes the open session as markdown.
func (m Model) exportCmd() tea.Cmd {
	return exportTo(m.opts.Context, m.target, m.viewer.Info().ID, m.opts.ExportDir, m.opts.Location)
}

// exportInfoCmd writes a session selected in the list.
func (m Model) exportInfoCmd(info session.Info) tea.Cmd {
	return exportTo(m.opts.Context, m.targetOf(info), info.ID, m.opts.ExportDir, m.opts.Location)
}

// exportTo returns a command that reads a session again, whole, and writes
// it as <dir>/<id>.md. It captures values only.
func exportTo(ctx context.Context, t feed.Target, id, dir string, loc *time.Location) tea.Cmd {
	return func() tea.Msg {
		path, err := ExportMarkdown(ctx, t, id, dir, loc)
		return exportedMsg{path: path, err: err}
	}
}

// ExportMarkdown writes the markdown export of a session to dir/<name>.md,
// with times in loc, and returns its path. It is what `cuff record export
// --format markdown` prints, streamed the same way (export.MarkdownSink:
// bounded memory whatever the session's size), into a file that appears
// only once it is complete and leaves nothing behind if cuff is killed.
func ExportMarkdown(ctx context.Context, t feed.Target, id, dir string, loc *time.Location) (string, error) {
	if dir == "" {
		return "", errors.New("no export directory: run cuff inside a project, or pass --dir")
	}
	if err := os.MkdirAll(dir, exportDirMode); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, exportName(id, t.Path)+".md")
	f, err := atomicfile.Create(path, exportFileMode)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	sink := export.NewMarkdownSink(f, export.MarkdownOptions{Location: loc})
	read := func(_ string, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
		return transcript.ReadStats{}, readEach(ctx, t, fn)
	}
	if _, err := export.WriteSessions(ctx, sink, []session.Info{{ID: id}}, read); err != nil {
		f.Abort()
		return "", err
	}
	if err := f.Commit(); err != nil {
		return "", err
	}
	return path, nil
}

// readEach streams every event of a session to fn, raw bytes included.
func readEach(ctx context.Context, t feed.Target, fn func(*transcript.Event) error) error {
	each := func(ev *transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(ev)
	}
	switch {
	case t.Source != nil && t.Source.Name() != session.NativeSourceName:
		// a Claude Code or Codex transcript, decoded by its source
		if err := t.Source.Read(ctx, t.ID, each); err != nil {
			return fmt.Errorf("read session %s: %w", t.ID, err)
		}
	case t.Path != "":
		f, err := transcript.Open(t.Path)
		if err != nil {
			return err // it names the file and what is wrong with it
		}
		defer f.Close()
		if _, err := session.ReadFile(f, each); err != nil {
			return fmt.Errorf("read %s: %w", t.Path, err)
		}
	case t.Source != nil:
		if err := t.Source.Read(ctx, t.ID, each); err != nil {
			return fmt.Errorf("read session %s: %w", t.ID, err)
		}
	default:
		return errors.New("no session to export")
	}
	return nil
}

// exportName is a file name for a session: its id, or its file's name,
// with anything but letters, digits and ._:- replaced.
func exportName(id, path string) string {
	name := id
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
	name = strings.TrimLeft(name, ".")
	if name == "" {
		name = "session"
	}
	return name
}
