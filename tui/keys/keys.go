// Package keys declares every key binding of the TUI once, grouped by
// where they work. Each group is a help.KeyMap, so the footer and the ?
// screen show the keys that work where the focus is.
package keys

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// KeyMap is all the TUI's bindings.
type KeyMap struct {
	Global  Global
	Browser Browser
	Finder  Finder
	Viewer  Viewer
	Search  Search
	Dialog  Dialog
	Help    Help
}

// Global bindings work everywhere unless a text input has the focus.
type Global struct {
	// Interrupt quits from anywhere, dialogs and text inputs included.
	Interrupt key.Binding
	Quit      key.Binding
	Help      key.Binding
	Switch    key.Binding // tab: list ⇄ session
	Export    key.Binding
	// Approvals reopens the approval prompt of requests left for later.
	Approvals key.Binding
}

// Browser bindings work in the session list.
type Browser struct {
	Move     key.Binding // ↑/↓, for the hint line only: Up and Down do the moving
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Open     key.Binding
	Filter   key.Binding
	Clear    key.Binding
	Refresh  key.Binding
	// Find opens the search across every session.
	Find     key.Binding
	Copy     key.Binding // y: the session's id
	NextFail key.Binding // x: the next session with failures
	PrevFail key.Binding // X
	Delete   key.Binding // D: to the trash
	Undo     key.Binding // u: restore what D just deleted
	Stats    key.Binding // S: per day, across the sessions listed
	// KeepFilter, ClearFilter and Select work while a filter is typed.
	KeepFilter  key.Binding
	ClearFilter key.Binding
	Select      key.Binding
}

// Finder bindings work in the search across every session, while the
// query is typed.
type Finder struct {
	Run  key.Binding // enter: search, or open the hit when the query ran
	Move key.Binding // ↑/↓ between hits
	Back key.Binding
}

// Viewer bindings work in a session's timeline.
type Viewer struct {
	Move       key.Binding // j/k, for the footer only: Up and Down do the moving
	Up         key.Binding
	Down       key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	HalfUp     key.Binding
	HalfDown   key.Binding
	Top        key.Binding
	Bottom     key.Binding
	Toggle     key.Binding
	ToggleAll  key.Binding
	Search     key.Binding
	Next       key.Binding
	Prev       key.Binding
	Filter     key.Binding
	FilterKind key.Binding // 0-5 pick a filter directly
	PrevPrompt key.Binding
	NextPrompt key.Binding
	Follow     key.Binding
	Answer     key.Binding // open the prompt of a pending approval
	Back       key.Binding
	Copy       key.Binding // y: the command, output or message
	Pager      key.Binding // o: open it in $PAGER
	Editor     key.Binding // E: open it in $EDITOR
	NextFail   key.Binding // x: the next failure, whatever the filter
	PrevFail   key.Binding // X
	Delete     key.Binding // D: the session, to the trash
	Stats      key.Binding // S: the session's stats
}

// Search bindings work while typing a search.
type Search struct {
	Confirm key.Binding
	Cancel  key.Binding
}

// Help bindings work in the ? overlay.
type Help struct {
	Down     key.Binding
	Up       key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Close    key.Binding
}

// Dialog bindings work in the approval prompt.
type Dialog struct {
	Approve  key.Binding
	Session  key.Binding
	Always   key.Binding
	Deny     key.Binding // asks for the reason, then denies
	Left     key.Binding
	Right    key.Binding
	Confirm  key.Binding
	Later    key.Binding
	Close    key.Binding
	Scroll   key.Binding
	ScrollUp key.Binding
	// SendDenial and Back work while the reason of a denial is typed.
	SendDenial key.Binding
	Back       key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	return KeyMap{
		Global: Global{
			Interrupt: b(k("ctrl+c"), h("ctrl+c", "quit")),
			Quit:      b(k("q"), h("q", "quit")),
			Help:      b(k("?"), h("?", "help")),
			Switch:    b(k("tab"), h("tab", "list/session")),
			Export:    b(k("ctrl+e"), h("ctrl+e", "export")),
			Approvals: b(k("a"), h("a", "answer pending approvals")),
		},
		Browser: Browser{
			Move:        b(k("up", "down"), h("↑/↓", "move")),
			KeepFilter:  b(k("enter"), h("enter", "keep filter")),
			ClearFilter: b(k("esc"), h("esc", "clear")),
			Select:      b(k("up", "down"), h("↑/↓", "select")),
			Up:          b(k("up", "k"), h("↑/k", "up")),
			Down:        b(k("down", "j"), h("↓/j", "down")),
			PageUp:      b(k("pgup", "ctrl+u", "b"), h("pgup", "page up")),
			PageDown:    b(k("pgdown", "ctrl+d", "f", "space"), h("pgdn", "page down")),
			Top:         b(k("home", "g"), h("g", "newest")),
			Bottom:      b(k("end", "G"), h("G", "oldest")),
			Open:        b(k("enter", "l", "right"), h("enter", "open")),
			Filter:      b(k("/"), h("/", "filter")),
			Clear:       b(k("esc"), h("esc", "clear filter")),
			Refresh:     b(k("r", "ctrl+r"), h("r", "refresh")),
			Find:        b(k("s", "ctrl+f"), h("s", "search all")),
			Copy:        b(k("y"), h("y", "copy id")),
			NextFail:    b(k("x"), h("x/X", "failures")),
			PrevFail:    b(k("X"), h("X", "previous with failures")),
			Delete:      b(k("D"), h("D", "delete")),
			Undo:        b(k("u"), h("u", "undo delete")),
			Stats:       b(k("S"), h("S", "stats")),
		},
		Finder: Finder{
			Run:  b(k("enter"), h("enter", "search/open")),
			Move: b(k("up", "down", "ctrl+p", "ctrl+n"), h("↑/↓", "select")),
			Back: b(k("esc"), h("esc", "back")),
		},
		Viewer: Viewer{
			Move:       b(k("j", "k"), h("j/k", "move")),
			Up:         b(k("up", "k"), h("↑/k", "previous")),
			Down:       b(k("down", "j"), h("↓/j", "next")),
			PageUp:     b(k("pgup", "b"), h("pgup/b", "page up")),
			PageDown:   b(k("pgdown"), h("pgdn", "page down")),
			HalfUp:     b(k("ctrl+u", "u"), h("ctrl+u", "half page up")),
			HalfDown:   b(k("ctrl+d", "d"), h("ctrl+d", "half page down")),
			Top:        b(k("home", "g"), h("g", "top")),
			Bottom:     b(k("end", "G"), h("G", "bottom")),
			Toggle:     b(k("enter", "space"), h("enter", "expand")),
			ToggleAll:  b(k("e"), h("e", "expand all")),
			Search:     b(k("/"), h("/", "search")),
			Next:       b(k("n"), h("n/N", "next/prev match")),
			Prev:       b(k("N"), h("N", "previous match")),
			Filter:     b(k("v"), h("v", "filter")),
			FilterKind: b(k("0", "1", "2", "3", "4", "5"), h("0-5", "all, turns, tools, bash, failures, approvals")),
			PrevPrompt: b(k("["), h("[/]", "prev/next prompt")),
			NextPrompt: b(k("]"), h("]", "next prompt")),
			Follow:     b(k("f"), h("f", "follow")),
			Answer:     b(k("a"), h("a", "answer approval")),
			Back:       b(k("esc", "backspace"), h("esc", "back")),
			Copy:       b(k("y"), h("y", "copy")),
			Pager:      b(k("o"), h("o", "open in $PAGER")),
			Editor:     b(k("E"), h("E", "open in $EDITOR")),
			NextFail:   b(k("x"), h("x/X", "failures")),
			PrevFail:   b(k("X"), h("X", "previous failure")),
			Delete:     b(k("D"), h("D", "delete")),
			Stats:      b(k("S"), h("S", "stats")),
		},
		Help: Help{
			Down:     b(k("down", "j"), h("↓/j", "scroll")),
			Up:       b(k("up", "k"), h("↑/k", "scroll up")),
			PageDown: b(k("pgdown", "space", "ctrl+d"), h("pgdn", "page down")),
			PageUp:   b(k("pgup", "b", "ctrl+u"), h("pgup", "page up")),
			Top:      b(k("home", "g"), h("g", "top")),
			Bottom:   b(k("end", "G"), h("G", "end")),
			Close:    b(k("esc", "q", "?"), h("esc", "close")),
		},
		Search: Search{
			Confirm: b(k("enter"), h("enter", "search")),
			Cancel:  b(k("esc"), h("esc", "cancel")),
		},
		Dialog: Dialog{
			Approve:    b(k("a", "y"), h("a", "approve once")),
			Session:    b(k("s"), h("s", "this agent session")),
			Always:     b(k("A"), h("A", "always")),
			Deny:       b(k("d", "n"), h("d", "deny…")),
			Left:       b(k("left", "h", "shift+tab"), h("←/→", "choose")),
			Right:      b(k("right", "l", "tab"), h("→", "choose")),
			Confirm:    b(k("enter"), h("enter", "confirm choice")),
			Later:      b(k("esc"), h("esc", "later")),
			Close:      b(k("esc", "q", "?"), h("esc", "close")),
			Scroll:     b(k("down", "j"), h("↓/j", "scroll diff")),
			ScrollUp:   b(k("up", "k"), h("↑/k", "scroll diff")),
			SendDenial: b(k("enter"), h("enter", "deny with this reason")),
			Back:       b(k("esc"), h("esc", "back")),
		},
	}
}

var (
	_ help.KeyMap = Browser{}
	_ help.KeyMap = Finder{}
	_ help.KeyMap = Viewer{}
	_ help.KeyMap = Dialog{}
	_ help.KeyMap = Search{}
	_ help.KeyMap = Help{}
)

// ShortHelp implements help.KeyMap.
func (k Browser) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Filter, k.Find, k.Move, k.NextFail, k.Stats, k.Delete, k.Copy}
}

// ShortHelp implements help.KeyMap.
func (k Finder) ShortHelp() []key.Binding { return []key.Binding{k.Run, k.Move, k.Back} }

// FullHelp implements help.KeyMap.
func (k Finder) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// FilterHelp is the keys that work while a filter is typed (? types a ?).
func (k Browser) FilterHelp() []key.Binding {
	return []key.Binding{k.Select, k.KeepFilter, k.ClearFilter}
}

// FullHelp implements help.KeyMap.
func (k Browser) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Filter, k.Clear, k.Refresh, k.Find}, {k.NextFail, k.Copy, k.Delete, k.Undo, k.Stats}}
}

// ShortHelp implements help.KeyMap.
func (k Viewer) ShortHelp() []key.Binding {
	return []key.Binding{k.Move, k.Toggle, k.Search, k.NextFail, k.Filter, k.Follow, k.Copy, k.Pager, k.Stats}
}

// FullHelp implements help.KeyMap.
func (k Viewer) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.Toggle, k.ToggleAll, k.PrevPrompt, k.Follow, k.Back},
		{k.Search, k.Next, k.Filter}, // Next's help names N too; a is a global key
		{k.FilterKind},
		{k.NextFail, k.Copy, k.Pager, k.Editor, k.Stats, k.Delete},
	}
}

// ShortHelp implements help.KeyMap.
func (k Help) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Up, k.Close} }

// FullHelp implements help.KeyMap.
func (k Help) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k Search) ShortHelp() []key.Binding { return []key.Binding{k.Confirm, k.Cancel} }

// FullHelp implements help.KeyMap.
func (k Search) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// ShortHelp implements help.KeyMap.
func (k Dialog) ShortHelp() []key.Binding {
	return []key.Binding{k.Approve, k.Session, k.Always, k.Deny, k.Later}
}

// FullHelp implements help.KeyMap.
func (k Dialog) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Approve, k.Session, k.Always, k.Deny}, {k.Left, k.Confirm, k.Scroll, k.Later}}
}

// ReasonHelp is the keys that work while the reason of a denial is typed.
func (k Dialog) ReasonHelp() []key.Binding { return []key.Binding{k.SendDenial, k.Back} }

// ShortHelp implements help.KeyMap.
func (k Global) ShortHelp() []key.Binding {
	return []key.Binding{k.Switch, k.Export, k.Approvals, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k Global) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
