package tui

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/session/search"
	"github.com/cuff-dev/cuff/tui/browser"
	"github.com/cuff-dev/cuff/tui/dialog"
	"github.com/cuff-dev/cuff/tui/feed"
	"github.com/cuff-dev/cuff/tui/finder"
	"github.com/cuff-dev/cuff/tui/styles"
	"github.com/cuff-dev/cuff/tui/viewer"
)

// Update routes a message: an open dialog first, then global keys, then
// the focused page. Sizes, ticks and async results go to whoever needs
// them.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.viewer.Cmds()
	case tea.BackgroundColorMsg:
		if m.fixedTheme() {
			return m, nil
		}
		m.setStyles(styles.New(msg.IsDark()))
		return m, m.viewer.Cmds()
	case openMsg:
		return m, m.openSession(msg.info)
	case browser.ListedMsg:
		return m.listed(msg)
	case browser.OpenMsg:
		return m, m.openSession(msg.Info)
	case browser.RefreshMsg:
		return m, browser.List(m.opts.Context, m.opts.Sources)
	case refreshMsg:
		m.refreshing = false
		if m.opts.Mode == ModeBrowse || m.waiting || m.open {
			return m, tea.Batch(browser.List(m.opts.Context, m.opts.Sources), m.ensureRefresh())
		}
		return m, nil
	case quietMsg:
		m.quietAt = time.Time{}
		return m, m.watchQuiet() // redrawn; again if something arrived since
	case feed.Msg:
		return m.applyFeed(msg)
	case tickMsg:
		return m.tick()
	case exportedMsg:
		if msg.err != nil {
			return m, m.showToast("Export failed: "+msg.err.Error(), true)
		}
		return m, tea.Batch(m.showToast("Exported to "+msg.path+" (path copied to the clipboard)", false), tea.SetClipboard(msg.path))
	case decidedMsg:
		return m.decided(msg)
	case ApprovalMsg:
		return m.approvalChanged(msg)
	case NoticeMsg:
		return m, m.showToast(msg.Text, msg.Err)
	case viewer.BackMsg:
		if m.opts.Mode == ModeBrowse {
			m.focus = focusBrowser
		}
		return m, nil
	case viewer.AnswerMsg:
		return m, m.answerFromTimeline(msg.Request)
	case finder.OpenMsg:
		return m.openHit(msg.Hit)
	case finder.CloseMsg:
		m.focus = focusBrowser
		return m, nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case viewer.NoteMsg, browser.NoteMsg, viewer.CopyMsg, browser.CopyMsg, copiedMsg, viewer.OpenMsg, openReadyMsg, openedMsg,
		viewer.DeleteMsg, browser.DeleteMsg, trashedMsg, browser.UndoMsg, restoredMsg, viewer.StatsMsg, usageMsg,
		browser.StatsMsg, dailyMsg:
		next, cmd, _ := m.handlePageAction(msg)
		return next, cmd
	case tea.PasteMsg:
		if d := m.dialogs.Top(); d != nil {
			return m.handleAction(d.HandleMsg(msg))
		}
	case tea.MouseMsg:
		if m.dialogs.Len() == 0 && m.focus == focusViewer && m.open {
			var cmd tea.Cmd
			m.viewer, cmd = m.viewer.Update(msg)
			older := m.olderCmd()
			return m, tea.Batch(cmd, older)
		}
		return m, nil
	}
	// Everything else (background renderings, cursor blinks, list
	// internals) goes to the pages.
	var c1, c2, c3 tea.Cmd
	m.viewer, c1 = m.viewer.Update(msg)
	m.browser, c2 = m.browser.Update(msg)
	m.finder, c3 = m.finder.Update(msg)
	return m, tea.Batch(c1, c2, c3)
}

func (m *Model) setStyles(st *styles.Styles) {
	m.st = st
	m.help.Styles = st.Help
	m.browser.SetStyles(st)
	m.viewer.SetStyles(st)
	m.finder.SetStyles(st)
}

func (m Model) handleKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if key.Matches(msg, m.keys.Global.Interrupt) {
		return m, m.quit()
	}
	if d := m.dialogs.Top(); d != nil {
		return m.handleAction(d.HandleMsg(msg))
	}
	typing := (m.focus == focusBrowser && m.browser.Filtering()) || (m.focus == focusViewer && m.viewer.Searching()) || m.focus == focusFinder
	if !typing {
		g := m.keys.Global
		switch {
		case key.Matches(msg, g.Quit):
			return m, m.quit()
		case key.Matches(msg, g.Approvals) && m.queue.len() > 0:
			return m, m.reopenApprovals()
		case key.Matches(msg, g.Help):
			m.dialogs.Push(m.helpDialog())
			return m, nil
		case key.Matches(msg, g.Switch):
			if m.open && m.opts.Mode == ModeBrowse {
				if m.focus == focusViewer {
					m.focus = focusBrowser
				} else {
					m.focus = focusViewer
				}
			}
			return m, nil
		case key.Matches(msg, g.Export):
			if m.open {
				return m, tea.Batch(m.showToast("Exporting…", false), m.exportCmd())
			}
			if info, ok := m.browser.Selected(); ok && m.focus == focusBrowser && !m.waiting {
				return m, tea.Batch(m.showToast("Exporting…", false), m.exportInfoCmd(info))
			}
			return m, nil
		}
	}
	if m.waiting && !m.open {
		// Waiting for a live session shows no list: its keys would act on
		// sessions the screen does not show (D would delete one).
		return m, nil
	}
	var cmd tea.Cmd
	switch {
	case m.focus == focusViewer && m.open:
		m.viewer, cmd = m.viewer.Update(msg)
		older := m.olderCmd()
		return m, tea.Batch(cmd, older)
	case m.focus == focusFinder:
		m.finder, cmd = m.finder.Update(msg)
		return m, cmd
	case m.focus == focusBrowser && !m.browser.Filtering() && m.opts.Searcher != nil && key.Matches(msg, m.keys.Browser.Find):
		m.focus = focusFinder
		return m, m.finder.Open()
	}
	m.browser, cmd = m.browser.Update(msg)
	return m, cmd
}

// openHit opens the session of a search hit and shows the hit in it.
func (m Model) openHit(h search.Hit) (tea.Model, tea.Cmd) {
	info := session.Info{ID: h.SessionID, Source: h.Source, Title: h.Title, Agent: h.Agent, Path: h.Path,
		Events: session.Unknown, Turns: session.Unknown, ToolCalls: session.Unknown, Commands: session.Unknown, Failures: session.Unknown}
	for _, in := range m.browser.Sessions() {
		if in.ID == h.SessionID && in.Source == h.Source {
			info = in // the listing knows its counts and status
			break
		}
	}
	cmd := m.openSession(info)
	t := viewer.Target{Time: h.Time}
	if h.Source == session.NativeSourceName {
		t.Seq = h.Seq // cuff's own sessions keep their seqs
	}
	m.viewer.SetTarget(t)
	older := m.olderCmd()
	return m, tea.Batch(cmd, older)
}

// handleAction carries out what a dialog asked for.
func (m Model) handleAction(a dialog.Action) (tea.Model, tea.Cmd) {
	switch a := a.(type) {
	case dialog.ActionClose:
		m.dialogs.Pop()
	case dialog.ActionLater:
		return m.later(a.ID)
	case dialog.ActionApprove:
		return m.answer(a.ID, Decision{Approve: true, Scope: a.Scope})
	case dialog.ActionDeny:
		return m.answer(a.ID, Decision{Reason: a.Reason})
	}
	return m, nil
}

func (m Model) helpDialog() dialog.Dialog {
	g := m.keys.Global
	everywhere := dialog.HelpSection{Title: "Everywhere", Keys: []key.Binding{g.Switch, g.Export, g.Approvals, g.Help, g.Quit, g.Interrupt}}
	if m.focus == focusViewer && m.open {
		return dialog.NewHelp(m.st, "Keys: session view", m.keys.Help,
			dialog.HelpSection{Title: "Session view", Keys: slices.Concat(m.keys.Viewer.FullHelp()...)}, everywhere)
	}
	if m.waiting && !m.open {
		return dialog.NewHelp(m.st, "Keys: waiting for a live session", m.keys.Help,
			dialog.HelpSection{Title: "While waiting", Keys: []key.Binding{g.Approvals, g.Help, g.Quit, g.Interrupt}})
	}
	b := m.keys.Browser
	return dialog.NewHelp(m.st, "Keys: session list", m.keys.Help,
		dialog.HelpSection{Title: "Session list", Keys: slices.Concat(b.FullHelp()...)},
		dialog.HelpSection{Title: "While typing a filter", Keys: b.FilterHelp()}, everywhere)
}

// listed takes a new listing; in watch mode with nothing named, it opens
// the newest live session once there is one.
func (m Model) listed(msg browser.ListedMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	m.browser, cmd = m.browser.Update(msg)
	if m.reselect != nil && m.browser.SelectSession(*m.reselect) {
		m.reselect = nil
	}
	if m.open {
		open := m.viewer.Info()
		for _, info := range msg.Infos {
			if info.ID == open.ID && info.Source == open.Source {
				m.viewer.SetSourceLive(info.Live)
				break
			}
		}
		return m, tea.Batch(cmd, m.watchQuiet())
	}
	if m.opts.Mode != ModeWatch {
		return m, cmd
	}
	for _, info := range msg.Infos {
		if info.Live {
			return m, tea.Batch(cmd, m.openSession(info))
		}
	}
	m.waiting = true
	return m, tea.Batch(cmd, m.ensureRefresh())
}

// applyFeed shows what a feed brought and waits for more.
func (m Model) applyFeed(msg feed.Msg) (tea.Model, tea.Cmd) {
	if m.feed == nil || msg.Gen != m.gen {
		return m, nil // a stale session's feed
	}
	if msg.OnDemand {
		m.viewer.SetOnDemand(true)
	}
	switch {
	case msg.Full != nil:
		m.viewer.Replace(msg.Full, false)
	case msg.Older != nil:
		m.viewer.Prepend(msg.Older, msg.Partial)
	case msg.Partial:
		m.viewer.SetPartial(true)
	}
	m.viewer.Append(msg.Events)
	for _, n := range msg.Notices {
		m.viewer.AppendNotice(n)
	}
	var cmds []tea.Cmd
	for _, ev := range msg.Events {
		if cmd := m.reactTo(ev); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	switch {
	case msg.Removed:
		m.viewer.SetRemoved()
		cmds = append(cmds, m.showToast("The session file was removed", true))
	case msg.Err != nil:
		m.viewer.SetError("Could not read the session: " + msg.Err.Error())
		m.viewer.SetLive(false)
		cmds = append(cmds, m.showToast(msg.Err.Error(), true))
	}
	if !msg.Closed {
		cmds = append(cmds, m.feed.Wait, m.olderCmd())
	}
	cmds = append(cmds, m.viewer.Cmds(), m.ensureTick(), m.watchQuiet())
	return m, tea.Batch(cmds...)
}

// olderCmd asks the feed for the part of the session before what is
// loaded, when the view has reached its top and there is more.
func (m *Model) olderCmd() tea.Cmd {
	if m.feed == nil || !m.viewer.TakeOlderRequest() {
		return nil
	}
	return m.feed.LoadOlder
}

// tick advances spinners and expires toasts; it keeps ticking while
// anything moves.
func (m Model) tick() (tea.Model, tea.Cmd) {
	m.ticking = false
	running := false
	if m.open {
		running = m.viewer.Tick()
	}
	if m.toast.text != "" && !m.opts.Now().Before(m.toast.until) {
		m.toast = toast{}
	}
	expired := m.expireQueued()
	if running || m.toast.text != "" || m.dialogs.Len() > 0 || m.queue.len() > 0 {
		return m, tea.Batch(expired, m.ensureTick())
	}
	return m, expired
}
