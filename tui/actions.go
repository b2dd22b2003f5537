package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/browser"
	"github.com/cuff-dev/cuff/tui/viewer"
)

// undoWindow is how long u brings back what D deleted.
const undoWindow = 8 * time.Second

// Programs o and E open with when $PAGER / $EDITOR ($VISUAL) are not set.
const (
	defaultPager  = "less"
	defaultEditor = "vi"
)

// undo is what D deleted last, while it can still be brought back.
type undo struct {
	info  session.Info
	until time.Time
}

// Messages that come back from the commands of the keys below.
type (
	copiedMsg struct {
		what, text string
		err        error
	}
	openReadyMsg struct {
		path, program string
		err           error
	}
	openedMsg struct {
		path string
		err  error
	}
	trashedMsg struct {
		info session.Info
		err  error
	}
	restoredMsg struct {
		info session.Info
		err  error
	}
	usageMsg struct {
		info  session.Info
		usage *session.Usage
		err   error
	}
	dailyMsg struct {
		days []session.Day
		err  error
	}
)

// handleAction carries out what a page asked for with y, o, E, x, D, u and
// S; ok is false for a message that is none of those.
func (m Model) handlePageAction(msg tea.Msg) (Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case viewer.NoteMsg:
		return m, m.showToast(msg.Text, false), true
	case browser.NoteMsg:
		return m, m.showToast(msg.Text, false), true
	case viewer.CopyMsg:
		c := msg.Content
		return m, func() tea.Msg {
			text, err := c.Read()
			return copiedMsg{what: c.What, text: text, err: err}
		}, true
	case browser.CopyMsg:
		return m.copied(copiedMsg{what: "the session id", text: msg.Info.ID})
	case copiedMsg:
		return m.copied(msg)
	case viewer.OpenMsg:
		return m, m.openCmd(msg), true
	case openReadyMsg:
		if msg.err != nil {
			return m, m.showToast("Could not open it: "+msg.err.Error(), true), true
		}
		cmd := exec.Command("sh", "-c", msg.program+` "$1"`, "sh", msg.path)
		return m, tea.ExecProcess(cmd, func(err error) tea.Msg { return openedMsg{path: msg.path, err: err} }), true
	case openedMsg:
		_ = os.Remove(msg.path)
		if msg.err != nil {
			return m, m.showToast("The program ended with an error: "+msg.err.Error(), true), true
		}
		return m, nil, true
	case viewer.DeleteMsg:
		return m, m.trashCmd(m.viewer.Info()), true
	case browser.DeleteMsg:
		return m, m.trashCmd(msg.Info), true
	case trashedMsg:
		return m.trashed(msg)
	case browser.UndoMsg:
		if m.undo == nil || m.opts.Now().After(m.undo.until) {
			return m, m.showToast("Nothing to undo", false), true
		}
		info := m.undo.info
		m.undo = nil
		return m, m.restoreCmd(info), true
	case restoredMsg:
		if msg.err != nil {
			return m, m.showToast("Could not restore "+msg.info.ID+": "+msg.err.Error(), true), true
		}
		m.reselect = &msg.info
		return m, tea.Batch(m.showToast("Restored "+msg.info.ID, false), browser.List(m.opts.Context, m.opts.Sources)), true
	case viewer.StatsMsg:
		return m, tea.Batch(m.showToast("Counting…", false), m.usageCmd(m.viewer.Info())), true
	case usageMsg:
		if msg.err != nil {
			return m, m.showToast("Could not read the session: "+msg.err.Error(), true), true
		}
		m.toast = toast{}
		m.dialogs.Push(m.usagePanel(msg.info, msg.usage))
		return m, nil, true
	case browser.StatsMsg:
		return m, tea.Batch(m.showToast("Counting…", false), m.dailyCmd(msg.Infos)), true
	case dailyMsg:
		if msg.err != nil {
			return m, m.showToast("Could not count: "+msg.err.Error(), true), true
		}
		m.toast = toast{}
		m.dialogs.Push(m.dailyPanel(msg.days))
		return m, nil, true
	}
	return m, nil, false
}

// copied puts text on the clipboard through the terminal (OSC 52).
func (m Model) copied(msg copiedMsg) (Model, tea.Cmd, bool) {
	if msg.err != nil {
		return m, m.showToast("Could not copy "+msg.what+": "+msg.err.Error(), true), true
	}
	note := fmt.Sprintf("Copied %s (%s) to the clipboard through the terminal (OSC 52)", msg.what, plural(len(msg.text), "byte"))
	return m, tea.Batch(tea.SetClipboard(msg.text), m.showToast(note, false)), true
}

// openCmd writes what is to be opened to a private temporary file, made
// inert (escape sequences written out, never run by a pager), and names
// the program to open it with.
func (m Model) openCmd(msg viewer.OpenMsg) tea.Cmd {
	program := m.env("PAGER")
	if msg.Editor {
		program = m.env("VISUAL")
		if program == "" {
			program = m.env("EDITOR")
		}
		if program == "" {
			program = defaultEditor
		}
	} else if program == "" {
		program = defaultPager
	}
	c := msg.Content
	return func() tea.Msg {
		text, err := c.Read()
		if err != nil {
			return openReadyMsg{err: err}
		}
		f, err := os.CreateTemp("", "cuff-*"+c.Ext)
		if err != nil {
			return openReadyMsg{err: err}
		}
		_, werr := f.WriteString(transcript.Inert(text))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(f.Name())
			return openReadyMsg{err: werr}
		}
		return openReadyMsg{path: f.Name(), program: program}
	}
}

// allSources is every source, and the parts of the ones that join others
// (session.Joined): what a session's Info.Source may name.
func (m Model) allSources() []session.Source {
	var out []session.Source
	for _, src := range m.opts.Sources {
		out = append(out, src)
		if j, ok := src.(interface{ Parts() []session.Source }); ok {
			out = append(out, j.Parts()...)
		}
	}
	return out
}

// env reads the environment (Options.Getenv in tests).
func (m Model) env(name string) string {
	if m.opts.Getenv != nil {
		return m.opts.Getenv(name)
	}
	return os.Getenv(name)
}

// trasherOf is the source that can delete info's session, or an error that
// says why not.
func (m Model) trasherOf(info session.Info) (session.Trasher, error) {
	if info.Source == session.NativeSourceName && len(info.Parts) == 0 {
		for _, src := range m.allSources() {
			if t, ok := src.(session.Trasher); ok && src.Name() == session.NativeSourceName {
				return t, nil
			}
		}
	}
	where := info.Path
	if where == "" {
		where = info.ID
	}
	return nil, fmt.Errorf("cuff deletes only its own recordings; %s is %s's file (%s): delete it there if you mean to",
		info.ID, sourceName(info.Source), where)
}

func sourceName(src string) string {
	switch src {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex"
	}
	return src
}

func (m Model) trashCmd(info session.Info) tea.Cmd {
	t, err := m.trasherOf(info)
	if err != nil {
		return func() tea.Msg { return trashedMsg{info: info, err: err} }
	}
	now := m.opts.Now()
	return func() tea.Msg {
		_, err := t.Trash(info.ID, now)
		return trashedMsg{info: info, err: err}
	}
}

func (m Model) restoreCmd(info session.Info) tea.Cmd {
	t, err := m.trasherOf(info)
	if err != nil {
		return func() tea.Msg { return restoredMsg{info: info, err: err} }
	}
	return func() tea.Msg {
		_, err := t.Restore(info.ID)
		return restoredMsg{info: info, err: err}
	}
}

// trashed shows the list without the deleted session and offers u.
func (m Model) trashed(msg trashedMsg) (Model, tea.Cmd, bool) {
	if msg.err != nil {
		var live *session.LiveError
		text := "Could not delete: " + msg.err.Error()
		if errors.As(msg.err, &live) {
			text = "Not deleted: " + msg.err.Error() + " (wait until it ends)"
		}
		return m, m.showToast(text, true), true
	}
	m.undo = &undo{info: msg.info, until: m.opts.Now().Add(undoWindow)}
	if m.open && m.viewer.Info().ID == msg.info.ID {
		if m.feed != nil {
			m.feed.Stop()
		}
		// What the stopped feed still sends (the file gone, which D did)
		// is stale from now on.
		m.feed, m.gen = nil, m.gen+1
		m.open, m.focus = false, focusBrowser
	}
	m.toast = toast{text: fmt.Sprintf("Deleted %s to the trash · u undoes", msg.info.ID), until: m.undo.until}
	return m, tea.Batch(m.ensureTick(), browser.List(m.opts.Context, m.opts.Sources)), true
}

func (m Model) usageCmd(info session.Info) tea.Cmd {
	src := m.targetOf(info).Source
	ctx := m.opts.Context
	return func() tea.Msg {
		if src == nil {
			return usageMsg{info: info, err: fmt.Errorf("no source lists %s", info.ID)}
		}
		u, err := session.UsageOf(ctx, src, info.ID)
		return usageMsg{info: info, usage: u, err: err}
	}
}

func (m Model) dailyCmd(infos []session.Info) tea.Cmd {
	sources, loc, ctx, cache := m.allSources(), m.opts.Location, m.opts.Context, m.opts.StatsCache
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, dailyBudget)
		defer cancel()
		days, err := session.DailyUsage(ctx, sources, infos, loc, cache)
		return dailyMsg{days: days, err: err}
	}
}

// dailyBudget bounds counting a year of sessions per day.
const dailyBudget = 2 * time.Minute

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// orDash writes zero as a dash.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" || s == "0" {
		return "—"
	}
	return s
}
