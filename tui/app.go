// Package tui owns the terminal UI: one root Model routes every message to the list, the session view and dialogs.
// It may import export, session, transcript, recorder/gate and recorder/approval; it never writes a recording itself.
package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/browser"
	"github.com/cuff-dev/cuff/tui/dialog"
	"github.com/cuff-dev/cuff/tui/feed"
	"github.com/cuff-dev/cuff/tui/finder"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
	"github.com/cuff-dev/cuff/tui/viewer"
)

// Timings of the UI.
const (
	tickInterval    = 100 * time.Millisecond
	refreshInterval = 2 * time.Second
	toastDuration   = 5 * time.Second
	// popWindow: an undecided approval request younger than this (with no
	// expiry of its own) pops its prompt up on its own.
	popWindow = 10 * time.Minute
)

// Mode is what the TUI starts with.
type Mode int

const (
	// ModeBrowse starts on the session list.
	ModeBrowse Mode = iota
	// ModeWatch follows one session: Options.Watch, or the newest live
	// session (waiting for one to start when there is none).
	ModeWatch
)

// Decision is a person's answer to an approval request.
type Decision struct {
	Approve bool
	Scope   string // once, session, always (approvals only)
	Reason  string
}

// Approver answers approval requests from the UI. Without one, requests are
// shown in the timeline but no prompt is offered.
type Approver interface {
	// Decide answers request requestID. The decision it returns stands even
	// with an error (one that could not be recorded in the session, say);
	// with no decision, the request is still open.
	Decide(ctx context.Context, requestID string, d Decision) (*transcript.ApprovalDecision, error)
}

// Options configure the TUI.
type Options struct {
	// Context ends the TUI's background work when done.
	Context context.Context
	// Sources are where sessions come from, the native store first.
	Sources []session.Source
	Mode    Mode
	// Watch is the session to follow in ModeWatch; nil follows the newest
	// live one. Set Path (and leave Source empty) for a plain JSONL file.
	Watch *session.Info
	// ExportDir is where Ctrl+E writes <id>.md.
	ExportDir string
	// Where names the store, for the empty list's message.
	Where string
	// Approver answers approval prompts; nil offers none.
	Approver Approver
	// ApprovalFeed says that pending requests arrive as ApprovalMsg, from
	// the approval broker the command watches, for every project. Without
	// it, prompts pop up for the requests of the session on screen.
	ApprovalFeed bool
	// ApprovalNote is an extra line in the approval prompt.
	ApprovalNote string
	// SandboxOff says why the commands cuff allows run outside its kernel
	// sandbox; the header shows it. Empty when they run inside it.
	SandboxOff string
	// Searcher runs the search across every session (s in the list); nil
	// leaves it out.
	Searcher finder.Searcher
	// Theme is "dark" or "light" to fix the colours, or "" / "auto" to
	// follow the terminal's background.
	Theme string
	// Now and Location make time deterministic in tests.
	Now      func() time.Time
	Location *time.Location
	// Banner is a line shown above everything, e.g. what the demo is.
	Banner string
	// Getenv reads the environment ($PAGER, $EDITOR); nil: os.Getenv.
	Getenv func(string) string
	// StatsCache keeps each session's token figures for S in the list
	// (session.OpenStatsCache); nil reads every session each time.
	StatsCache *session.StatsCache
}

type focus int

const (
	focusBrowser focus = iota
	focusViewer
	focusFinder // the search across every session
)

// Model is the root model: the only one that returns a tea.View.
type Model struct {
	opts    Options
	keys    keys.KeyMap
	st      *styles.Styles
	focus   focus
	browser browser.Model
	finder  finder.Model
	viewer  viewer.Model
	help    help.Model
	dialogs dialog.Stack

	width, height int
	open          bool // a session is open in the viewer
	target        feed.Target
	feed          *feed.Feed
	gen           int
	waiting       bool // watch mode, no live session yet
	ticking       bool
	refreshing    bool          // a refresh tick is on its way
	undo          *undo         // what D deleted, while u can bring it back
	reselect      *session.Info // to select once the next listing has it
	quietAt       time.Time     // a quietMsg is due then
	toast         toast
	answered      map[string]bool // requests answered or put off here
	queue         approvalQueue   // pending requests from the feed
	closed        map[string]bool // requests the feed reported decided or gone
	started       time.Time
}

type toast struct {
	text  string
	err   bool
	until time.Time
}

// New builds the root model.
func New(opts Options) Model {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	km := keys.DefaultKeyMap()
	if opts.Searcher == nil {
		km.Browser.Find.SetEnabled(false) // neither offered nor taken
	}
	st := styles.New(opts.Theme != ThemeLight)
	h := help.New()
	h.Styles = st.Help
	m := Model{
		opts: opts, keys: km, st: st, help: h,
		browser:  browser.New(st, km.Browser, opts.Location, opts.Now, opts.Where),
		viewer:   viewer.New(st, km, opts.Location, opts.Now),
		finder:   finder.New(opts.Context, opts.Searcher, st, km.Finder, opts.Location),
		answered: map[string]bool{},
		closed:   map[string]bool{},
		queue:    newApprovalQueue(),
		started:  opts.Now(),
		// Init starts the refresh ticks unless it opens a named session.
		refreshing: !(opts.Mode == ModeWatch && opts.Watch != nil),
	}
	m.viewer.SetCanAnswer(opts.Approver != nil)
	return m
}

// Themes that fix the colours instead of following the terminal.
const (
	ThemeDark  = "dark"
	ThemeLight = "light"
)

// fixedTheme reports whether the colours ignore the terminal's background.
func (m Model) fixedTheme() bool { return m.opts.Theme == ThemeDark || m.opts.Theme == ThemeLight }

// Init asks for the background colour and starts the first load.
func (m Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if !m.fixedTheme() {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	switch {
	case m.opts.Mode == ModeWatch && m.opts.Watch != nil:
		// Opened on the first message, when the model can be changed.
		cmds = append(cmds, func() tea.Msg { return openMsg{info: *m.opts.Watch} })
	default:
		cmds = append(cmds, browser.List(m.opts.Context, m.opts.Sources), m.refreshTick())
	}
	return tea.Batch(cmds...)
}

// openMsg opens a session named at start-up.
type openMsg struct{ info session.Info }

type tickMsg struct{}

type refreshMsg struct{}

func (m Model) refreshTick() tea.Cmd {
	return tea.Tick(refreshInterval, func(time.Time) tea.Msg { return refreshMsg{} })
}

// ensureRefresh starts the refresh ticks if they are not running: one
// chain only, however often it is asked.
func (m *Model) ensureRefresh() tea.Cmd {
	if m.refreshing {
		return nil
	}
	m.refreshing = true
	return m.refreshTick()
}

// quietMsg comes when the open session may have stopped being live.
type quietMsg struct{}

// watchQuiet arranges a redraw for when the open session stops being live
// if nothing more happens; no timer runs when that does not depend on time.
func (m *Model) watchQuiet() tea.Cmd {
	at := m.viewer.QuietAt()
	if at.IsZero() || !at.After(m.quietAt) {
		return nil
	}
	m.quietAt = at
	return tea.Tick(at.Sub(m.opts.Now())+quietSlack, func(time.Time) tea.Msg { return quietMsg{} })
}

// quietSlack lets a quietMsg arrive just after the moment it is for.
const quietSlack = 50 * time.Millisecond

// ensureTick starts the spinner/toast tick if it is not running.
func (m *Model) ensureTick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(tickInterval, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) showToast(text string, isErr bool) tea.Cmd {
	m.toast = toast{text: text, err: isErr, until: m.opts.Now().Add(toastDuration)}
	return m.ensureTick()
}

// sourceNamed finds a source by name.
func (m Model) sourceNamed(name string) session.Source {
	for _, s := range m.opts.Sources {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// targetOf is what a feed reads to show a session: a conversation joined
// from several records (or a native session that belongs to one) through
// the joined source, live; any other session's file, tail first, whatever
// its format, with its source to fall back on.
func (m Model) targetOf(info session.Info) feed.Target {
	if info.Source == "" && info.Path != "" {
		return feed.Target{ID: info.ID, Path: info.Path} // a file named on the command line: that file
	}
	src := m.sourceNamed(info.Source)
	if j := m.sourceNamed(session.JoinedSourceName); j != nil && (src == nil || len(info.Parts) > 0 || info.Conversation != "") {
		src = j
	}
	t := feed.Target{Source: src, ID: info.ID}
	if len(info.Parts) == 0 && info.Conversation == "" {
		t.Path = info.Path
	}
	return t
}

// openSession starts showing a session: stops the old feed, starts the new.
func (m *Model) openSession(info session.Info) tea.Cmd {
	if m.feed != nil {
		m.feed.Stop()
	}
	m.gen++
	t := m.targetOf(info)
	m.target = t
	m.feed = feed.New(m.opts.Context, m.gen, t)
	m.viewer.Open(m.gen, info)
	m.viewer.SetLive(m.opts.Mode == ModeWatch || info.Live) // follow it
	m.open, m.waiting, m.focus = true, false, focusViewer
	m.quietAt = time.Time{}
	m.layout()
	return tea.Batch(m.feed.Run, m.feed.Wait, m.ensureTick(), m.ensureRefresh())
}

// bannerHeight is the lines Options.Banner takes.
func (m Model) bannerHeight() int {
	if m.opts.Banner == "" || m.height < minBannerHeight {
		return 0
	}
	return 1
}

// minBannerHeight is the least screen height that keeps the banner.
const minBannerHeight = 8

// layout hands the pages their sizes.
func (m *Model) layout() {
	body := max(m.height-1-m.bannerHeight(), 1) // the status bar, the banner
	m.viewer.SetSize(m.width, body)
	m.browser.SetSize(m.width, max(body-1, 1)) // the title line
	m.finder.SetSize(m.width, max(body-1, 1))
	m.help.SetWidth(m.width)
}

// Quit stops background work; the program ends after it.
func (m *Model) quit() tea.Cmd {
	if m.feed != nil {
		m.feed.Stop()
	}
	return tea.Quit
}
