// Package viewer is the session view: a header with the session's
// metadata over a timeline where each kind of event has its own look. It
// renders only the items on screen, caches each item's lines by width and
// version, and follows a live session.
package viewer

import (
	"sort"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// maxCachedItems bounds the render cache; past it the cache starts over.
const maxCachedItems = 4096

// Model is the session view.
type Model struct {
	r     *renderer
	st    *styles.Styles
	keys  keys.Viewer
	skeys keys.Search
	now   func() time.Time

	gen     int // which opening of a session this is; stale messages are dropped
	info    session.Info
	tl      *timeline.Timeline
	partial bool // only the tail is loaded; the rest is being indexed
	// onDemand: the part before the tail is loaded a step at a time when
	// the view reaches its top (a foreign transcript); asked says a step
	// has been asked for and not come yet, wantTop that the person went
	// to the top and the view follows it as older parts come.
	onDemand, asked, wantTop bool
	// target is an event to show once it is loaded (a search hit).
	target  *Target
	removed bool // the followed file was deleted
	live    bool // events are being followed
	// sourceLive: the session's source says a writer or its agent is at
	// work (a lease held); lastEvent: when the newest event happened (never
	// later than it arrived). Together they say whether it is live.
	sourceLive bool
	lastEvent  time.Time
	loading    bool
	err        string

	width, height int

	filter timeline.Filter
	vis    []*timeline.Item // items the filter shows, in display order

	sel       *timeline.Item
	top       *timeline.Item
	off       int // lines of top scrolled out above the screen
	follow    bool
	paused    bool // the person turned following off with f
	newCount  int
	expandAll bool
	expanded  map[int64]bool // per-item overrides, by itemKey

	cache map[*timeline.Item]*cached
	bg    *background

	search    searchState
	spin      int
	canAnswer bool

	frame      []string
	frameItems []*timeline.Item
}

type cached struct {
	width, version     int
	expanded, explicit bool
	lines              []string
	lead               int // blank lines before the item's first line
}

// New returns an empty session view.
func New(st *styles.Styles, km keys.KeyMap, loc *time.Location, now func() time.Time) Model {
	if now == nil {
		now = time.Now
	}
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "search"
	ti.CharLimit = 256
	m := Model{
		st: st, keys: km.Viewer, skeys: km.Search, now: now,
		tl:       timeline.New(),
		follow:   true,
		expanded: map[int64]bool{},
		cache:    map[*timeline.Item]*cached{},
		search:   searchState{input: ti},
	}
	m.setRenderer(st, loc)
	return m
}

// SetStyles switches to styles for another background, dropping what was
// rendered with the old ones.
func (m *Model) SetStyles(st *styles.Styles) {
	m.setRenderer(st, m.r.loc)
	m.invalidate()
	m.layout()
}

func (m *Model) setRenderer(st *styles.Styles, loc *time.Location) {
	m.st = st
	m.bg = newBackground(st.Dark)
	m.r = &renderer{st: st, md: common.NewMarkdown(st.Dark), hl: common.NewHighlighter(st.Dark), loc: loc, markdown: m.bg.markdown}
	m.search.input.SetStyles(textinput.DefaultStyles(st.Dark))
}

// SetSize sets the area the view draws in, header included.
func (m *Model) SetSize(width, height int) {
	m.width, m.height = max(width, 1), max(height, 1)
	m.search.input.SetWidth(max(m.width-4, 1))
	m.layout()
}

// Open starts showing a session: an empty timeline until events arrive.
func (m *Model) Open(gen int, info session.Info) {
	m.gen, m.info = gen, info
	m.tl = timeline.New()
	m.partial, m.removed, m.loading, m.live, m.err = false, false, true, false, ""
	m.onDemand, m.asked, m.wantTop, m.target = false, false, false, nil
	m.sourceLive, m.lastEvent = info.Live, time.Time{}
	m.vis, m.sel, m.top, m.off = nil, nil, nil, 0
	m.follow, m.paused, m.newCount, m.filter, m.expandAll = true, false, 0, timeline.FilterAll, false
	m.expanded = map[int64]bool{}
	m.search = searchState{input: m.search.input}
	m.search.input.Reset()
	m.invalidate()
	m.layout()
}

// Gen is the opening the view shows; messages for other openings are stale.
func (m Model) Gen() int { return m.gen }

// Info is the session being shown.
func (m Model) Info() session.Info { return m.info }

// Timeline is what the view shows.
func (m Model) Timeline() *timeline.Timeline { return m.tl }

// SetPartial says whether only the tail of the session is loaded yet.
func (m *Model) SetPartial(p bool) { m.partial = p }

// SetOnDemand says that the part before the tail is loaded a step at a
// time, when the view reaches its top (see TakeOlderRequest).
func (m *Model) SetOnDemand(v bool) { m.onDemand = v }

// TakeOlderRequest reports, once per step, that the view shows the top of
// what is loaded while there is more before it: the root then asks the
// feed for the older part, which comes to Prepend.
func (m *Model) TakeOlderRequest() bool {
	if !m.partial || !m.onDemand || m.asked || len(m.vis) == 0 || m.pos(m.top) != 0 || m.off != 0 {
		return false
	}
	m.asked = true
	return true
}

// Prepend puts an older part of the session before what is loaded,
// keeping the view where it is (the items on screen stay there; after a
// jump to the top, the view goes on to the new top); partial says whether
// there is more before it still.
func (m *Model) Prepend(older *timeline.Timeline, partial bool) {
	m.tl.Prepend(older)
	m.partial, m.asked, m.loading = partial, false, false
	m.rebuildVis()
	if m.wantTop && len(m.vis) > 0 {
		m.follow, m.sel, m.top, m.off = false, m.vis[0], m.vis[0], 0
	}
	m.wantTop = m.wantTop && partial
	m.applyTarget()
	m.recomputeMatches()
	m.layout()
}

// Target is an event the view is to select once it is loaded: the item
// with its seq (for cuff's own sessions, whose seqs are the file's), else
// the first item at or after its time.
type Target struct {
	Seq  int64
	Time time.Time
}

// SetTarget asks the view to select the event t names as soon as it is
// loaded, loading older parts of the session until it is.
func (m *Model) SetTarget(t Target) {
	m.target = &t
	m.applyTarget()
	m.layout()
}

// applyTarget selects the target when it is loaded, and asks for older
// history while it is older than everything loaded.
func (m *Model) applyTarget() {
	t := m.target
	if t == nil || len(m.vis) == 0 {
		return
	}
	var found, within, after *timeline.Item
	for _, it := range m.vis {
		if it.Kind == timeline.KindNotice || it.Kind == timeline.KindSessionStart && t.Seq <= 0 {
			continue // by time: the start shares its time with the first prompt, which a hit is
		}
		if t.Seq > 0 {
			if it.Seq() == t.Seq {
				found = it
				break
			}
			continue
		}
		if t.Time.IsZero() {
			continue
		}
		// By time: the item that started then; else the latest one
		// running then (a hit in a command's output has the time of its
		// end); else the first item after it.
		switch ts := it.TS(); {
		case ts.Equal(t.Time):
			found = it
		case ts.Before(t.Time) && !t.Time.After(itemEnd(it).Add(time.Second)):
			within = it
		case after == nil && ts.After(t.Time):
			after = it
		}
		if found != nil {
			break
		}
	}
	if found == nil {
		found = within
	}
	if found == nil {
		found = after
	}
	first := m.vis[0]
	older := m.partial && (t.Seq > 0 && first.Seq() > t.Seq || t.Seq <= 0 && first.TS().After(t.Time))
	switch {
	case older && m.onDemand:
		m.wantTop = true // go on loading older parts (see Prepend)
		m.follow, m.sel, m.top, m.off = false, first, first, 0
		return
	case found == nil && m.partial:
		return // the rest is being indexed: the target comes with it
	case found == nil:
		found = m.vis[len(m.vis)-1]
	}
	m.target, m.wantTop = nil, false
	m.follow, m.paused, m.sel, m.top, m.off = false, true, found, found, 0
}

// itemEnd is when an item ended as far as its halves say: its second
// half's time where it is kept, else its start and the duration its
// result reports (the second halves of commands and tool calls keep no
// time of their own).
func itemEnd(it *timeline.Item) time.Time {
	if end := it.EndTS(); !end.IsZero() {
		return end
	}
	var ms int64
	if run := it.BashRun(); run != nil {
		ms = run.DurationMS
	} else if res := it.ToolResult(); res != nil {
		ms = res.DurationMS
	}
	return it.TS().Add(time.Duration(ms) * time.Millisecond)
}

// SetLive says whether the session is being followed.
func (m *Model) SetLive(live bool) { m.live = live }

// SetSourceLive says whether the session's source lists it as live (a
// writer holds it, or it was just appended to).
func (m *Model) SetSourceLive(live bool) { m.sourceLive = live }

// Active reports whether the session is live: it has not ended, and its
// source says so or an event happened within session.LiveWindow.
func (m Model) Active() bool {
	if m.tl.End != nil || m.removed {
		return false
	}
	return m.sourceLive || m.now().Sub(m.lastEvent) < session.LiveWindow
}

// QuietAt is when the session stops being live if nothing more arrives
// (zero when that does not depend on the clock).
func (m Model) QuietAt() time.Time {
	if !m.Active() || m.sourceLive {
		return time.Time{}
	}
	return m.lastEvent.Add(session.LiveWindow)
}

// SetRemoved marks the followed file as deleted.
func (m *Model) SetRemoved() {
	m.removed, m.live = true, false
	m.add(nil, "The session file was removed; showing what was read before.")
	m.layout()
}

// SetError shows a problem loading the session.
func (m *Model) SetError(msg string) {
	m.err, m.loading = msg, false
	m.layout()
}

// SetCanAnswer says whether pending approvals can be answered here.
func (m *Model) SetCanAnswer(v bool) {
	if m.canAnswer != v {
		m.canAnswer = v
		m.invalidate()
		m.layout()
	}
}

// Replace swaps in a whole timeline, such as the full index of a session
// whose tail was shown first, keeping the view on the same event.
func (m *Model) Replace(tl *timeline.Timeline, partial bool) {
	var anchorSel, anchorTop int64 = -1, -1
	if m.sel != nil {
		anchorSel = m.sel.Seq()
	}
	if m.top != nil && !m.follow {
		anchorTop = m.top.Seq()
	}
	m.tl, m.partial, m.loading = tl, partial, false
	m.invalidate()
	m.rebuildVis()
	m.sel, m.top = nil, nil
	for _, it := range m.vis {
		if it.Kind == timeline.KindNotice {
			continue
		}
		if it.Seq() == anchorSel && m.sel == nil {
			m.sel = it
		}
		if it.Seq() == anchorTop && m.top == nil {
			m.top = it
		}
	}
	if m.sel == nil && len(m.vis) > 0 {
		m.sel = m.vis[len(m.vis)-1]
	}
	if m.top == nil {
		m.top, m.off = m.sel, 0
	}
	m.applyTarget()
	m.recomputeMatches()
	m.layout()
}

// Append adds events that arrived. The view stays at the bottom when it
// was there; otherwise it counts the new items for the "N new ↓" notice.
func (m *Model) Append(events []*transcript.Event) {
	if len(events) == 0 {
		return
	}
	m.loading = false
	now := m.now()
	for _, ev := range events {
		ts := ev.TS
		if ts.After(now) {
			ts = now
		}
		if ts.After(m.lastEvent) {
			m.lastEvent = ts
		}
		m.add(ev, "")
	}
	m.applyTarget()
	m.layout()
}

// AppendNotice adds a line of cuff's own, such as a malformed line.
func (m *Model) AppendNotice(text string) {
	m.add(nil, text)
	m.layout()
}

// add puts one event (or, with ev nil, a notice) into the timeline and the
// filtered list.
func (m *Model) add(ev *transcript.Event, notice string) {
	wasLast := m.sel == nil || (len(m.vis) > 0 && m.sel == m.vis[len(m.vis)-1])
	var ch timeline.Change
	if ev == nil {
		ch = m.tl.Notice(notice)
	} else {
		ch = m.tl.Add(ev)
	}
	it := ch.Item
	if !ch.Inserted {
		delete(m.cache, it)
		if m.filter.Match(it) && !m.inVis(it) { // completed into a match
			m.insertVis(it)
		}
		return
	}
	if !m.filter.Match(it) {
		return
	}
	m.insertVis(it)
	if m.search.query != "" && it.Contains(m.search.query) {
		m.insertMatch(it)
	}
	if m.follow && wasLast {
		m.sel = m.vis[len(m.vis)-1]
	} else if !m.follow {
		m.newCount++
	}
}

// insertVis puts it into the filtered list at its display position.
func (m *Model) insertVis(it *timeline.Item) {
	i := sort.Search(len(m.vis), func(i int) bool { return m.vis[i].Index() >= it.Index() })
	if i < len(m.vis) && m.vis[i] == it {
		return
	}
	if i == len(m.vis) {
		m.vis = append(m.vis, it)
		return
	}
	m.vis = append(m.vis, nil)
	copy(m.vis[i+1:], m.vis[i:])
	m.vis[i] = it
}

// pos is where it is (or would be) in the filtered list.
func (m *Model) pos(it *timeline.Item) int {
	if it == nil {
		return 0
	}
	i := sort.Search(len(m.vis), func(i int) bool { return m.vis[i].Index() >= it.Index() })
	if i < len(m.vis) && m.vis[i] == it {
		return i
	}
	return min(i, len(m.vis))
}

func (m *Model) inVis(it *timeline.Item) bool {
	i := m.pos(it)
	return i < len(m.vis) && m.vis[i] == it
}

func (m *Model) rebuildVis() {
	m.vis = m.vis[:0]
	for _, it := range m.tl.Items() {
		if m.filter.Match(it) {
			m.vis = append(m.vis, it)
		}
	}
}

// invalidate drops every rendered item.
func (m *Model) invalidate() {
	m.cache = map[*timeline.Item]*cached{}
	m.bg.done = map[asyncKey][]string{}
	m.bg.asked = map[asyncKey]bool{}
}

// itemKey identifies an item across timelines of the same session (the
// tail shown first and the full index that replaces it).
func itemKey(it *timeline.Item) int64 {
	if it.Kind != timeline.KindNotice {
		return it.Seq()
	}
	return -int64(it.ID) - 1
}

func (m *Model) isExpanded(it *timeline.Item) bool {
	if v, ok := m.expanded[itemKey(it)]; ok {
		return v
	}
	return m.expandAll || defaultExpanded(it)
}

// Tick advances the spinner of running items; it reports whether anything
// on screen is running (and so whether to keep ticking).
func (m *Model) Tick() bool {
	m.spin++
	running := m.Running()
	if running {
		m.layout()
	}
	return running || m.loading
}

// Running reports whether anything on screen is still running, and so
// has a spinner and a clock to keep going.
func (m Model) Running() bool {
	if m.tl.End != nil || m.removed || !m.live {
		return false
	}
	now := m.now()
	for _, it := range m.frameItems {
		if it != nil && it.Running() && now.Sub(it.TS()) <= staleAfter {
			return true
		}
	}
	return false
}

// Searching reports whether the search input has the keyboard.
func (m Model) Searching() bool { return m.search.typing }

// Selected is the selected item, or nil.
func (m Model) Selected() *timeline.Item { return m.sel }

// Following reports whether the view sticks to the bottom.
func (m Model) Following() bool { return m.follow }

// NewBelow is how many items arrived below the screen since the view left
// the bottom.
func (m Model) NewBelow() int { return m.newCount }

// Filter is the kind of item shown.
func (m Model) Filter() timeline.Filter { return m.filter }

// KeyMap is the view's key map, for help.
func (m Model) KeyMap() keys.Viewer { return m.keys }

// Init does nothing; the root starts what the view needs.
func (m Model) Init() tea.Cmd { return nil }
