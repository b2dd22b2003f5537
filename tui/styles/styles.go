// Package styles holds the TUI's one Styles value, built from a few
// semantic colours for a dark or a light terminal and handed down to every
// component.
package styles

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Palette is the handful of semantic colours everything else derives from.
type Palette struct {
	Primary color.Color // focus, headings, the selection
	Accent  color.Color // the user's own words
	Subtle  color.Color // borders, guides
	Muted   color.Color // secondary text
	Text    color.Color // body text
	OK      color.Color
	Warn    color.Color
	Error   color.Color
	Match   color.Color // search match background
	Panel   color.Color // status bar and dialog background
}

// NewPalette returns the palette for a dark or a light background.
func NewPalette(isDark bool) Palette {
	ld := lipgloss.LightDark(isDark)
	return Palette{
		Primary: ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#9D8CFF")),
		Accent:  ld(lipgloss.Color("#0B6E99"), lipgloss.Color("#5FD7FF")),
		Subtle:  ld(lipgloss.Color("#C9C9D1"), lipgloss.Color("#3F3F4A")),
		Muted:   ld(lipgloss.Color("#6E6E7A"), lipgloss.Color("#8A8A99")),
		Text:    ld(lipgloss.Color("#1E1E24"), lipgloss.Color("#E4E4EA")),
		OK:      ld(lipgloss.Color("#1A7F37"), lipgloss.Color("#5FD787")),
		Warn:    ld(lipgloss.Color("#9A6700"), lipgloss.Color("#FFD75F")),
		Error:   ld(lipgloss.Color("#CF222E"), lipgloss.Color("#FF6B6B")),
		Match:   ld(lipgloss.Color("#FFE08A"), lipgloss.Color("#7A5C00")),
		Panel:   ld(lipgloss.Color("#EDEDF2"), lipgloss.Color("#24242C")),
	}
}

// Styles is every style the TUI draws with.
type Styles struct {
	Dark    bool
	Palette Palette

	// Frame
	Title      lipgloss.Style // the app name in the header
	Header     lipgloss.Style // the header line's text
	HeaderKey  lipgloss.Style // a label inside the header
	StatusBar  lipgloss.Style
	StatusInfo lipgloss.Style // right-hand figures of the status bar
	Live       lipgloss.Style // the live badge
	Ended      lipgloss.Style
	Toast      lipgloss.Style
	ToastError lipgloss.Style
	NewBelow   lipgloss.Style // "N new ↓"
	Help       help.Styles

	// Session list
	ListHeader   lipgloss.Style
	ListRow      lipgloss.Style
	ListSelected lipgloss.Style
	ListMuted    lipgloss.Style
	ListFailures lipgloss.Style

	// Timeline
	Selected   lipgloss.Style // the gutter mark of the selected item
	Guide      lipgloss.Style // the indentation guide of a delegation
	Time       lipgloss.Style
	Muted      lipgloss.Style
	Role       lipgloss.Style
	UserRole   lipgloss.Style
	UserText   lipgloss.Style
	UserBlock  lipgloss.Style
	Thinking   lipgloss.Style
	ToolName   lipgloss.Style
	Summary    lipgloss.Style
	Prompt     lipgloss.Style // the "$" before a command
	OK         lipgloss.Style
	Fail       lipgloss.Style
	Warn       lipgloss.Style
	Label      lipgloss.Style // "stdout", "stderr", "input"
	ErrLabel   lipgloss.Style
	Output     lipgloss.Style
	Notice     lipgloss.Style // truncation and size notices
	Hint       lipgloss.Style // "▸ 42 lines (enter)"
	Delegation lipgloss.Style
	Approval   lipgloss.Style
	DiffAdd    lipgloss.Style
	DiffDel    lipgloss.Style
	DiffHunk   lipgloss.Style
	Match      lipgloss.Style
	Escaped    lipgloss.Style

	// Dialogs
	Dialog       lipgloss.Style
	DialogTitle  lipgloss.Style
	Button       lipgloss.Style
	ButtonActive lipgloss.Style
}

// New builds the styles for a dark or a light terminal.
func New(isDark bool) *Styles {
	p := NewPalette(isDark)
	base := lipgloss.NewStyle()
	s := &Styles{Dark: isDark, Palette: p}

	s.Title = base.Foreground(p.Primary).Bold(true)
	s.Header = base.Foreground(p.Text)
	s.HeaderKey = base.Foreground(p.Muted)
	s.StatusBar = base.Foreground(p.Muted)
	s.StatusInfo = base.Foreground(p.Muted)
	s.Live = base.Foreground(p.OK).Bold(true)
	s.Ended = base.Foreground(p.Muted)
	s.Toast = base.Foreground(p.OK).Bold(true)
	s.ToastError = base.Foreground(p.Error).Bold(true)
	s.NewBelow = base.Foreground(p.Warn).Bold(true)
	s.Help = help.DefaultStyles(isDark)

	s.ListHeader = base.Foreground(p.Muted).Bold(true)
	s.ListRow = base.Foreground(p.Text)
	s.ListSelected = base.Foreground(p.Primary).Bold(true)
	s.ListMuted = base.Foreground(p.Muted)
	s.ListFailures = base.Foreground(p.Error)

	s.Selected = base.Foreground(p.Primary)
	s.Guide = base.Foreground(p.Subtle)
	s.Time = base.Foreground(p.Muted)
	s.Muted = base.Foreground(p.Muted)
	s.Role = base.Foreground(p.Primary).Bold(true)
	s.UserRole = base.Foreground(p.Accent).Bold(true)
	s.UserText = base.Foreground(p.Text)
	s.UserBlock = base.BorderStyle(lipgloss.ThickBorder()).BorderLeft(true).BorderForeground(p.Accent).PaddingLeft(1)
	s.Thinking = base.Foreground(p.Muted).Italic(true)
	s.ToolName = base.Foreground(p.Primary).Bold(true)
	s.Summary = base.Foreground(p.Text)
	s.Prompt = base.Foreground(p.Accent).Bold(true)
	s.OK = base.Foreground(p.OK)
	s.Fail = base.Foreground(p.Error).Bold(true)
	s.Warn = base.Foreground(p.Warn)
	s.Label = base.Foreground(p.Muted).Bold(true)
	s.ErrLabel = base.Foreground(p.Error).Bold(true)
	s.Output = base.Foreground(p.Text)
	s.Notice = base.Foreground(p.Warn).Italic(true)
	s.Hint = base.Foreground(p.Muted)
	s.Delegation = base.Foreground(p.Accent).Bold(true)
	s.Approval = base.Foreground(p.Warn).Bold(true)
	s.DiffAdd = base.Foreground(p.OK)
	s.DiffDel = base.Foreground(p.Error)
	s.DiffHunk = base.Foreground(p.Accent)
	s.Match = base.Background(p.Match).Foreground(p.Text)
	s.Escaped = base.Foreground(p.Warn)

	s.Dialog = base.Border(lipgloss.RoundedBorder()).BorderForeground(p.Warn).Padding(1, 2)
	s.DialogTitle = base.Foreground(p.Warn).Bold(true)
	s.Button = base.Foreground(p.Muted).Padding(0, 1)
	s.ButtonActive = base.Foreground(p.Text).Background(p.Primary).Bold(true).Padding(0, 1)
	return s
}
