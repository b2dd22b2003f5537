package viewer

import (
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// CopyMsg asks the root to copy what the selected item shows (y).
type CopyMsg struct{ Content Content }

// OpenMsg asks the root to open it in $PAGER (o) or $EDITOR (E).
type OpenMsg struct {
	Content Content
	Editor  bool
}

// NoteMsg asks the root to show a short note.
type NoteMsg struct{ Text string }

// DeleteMsg asks the root to delete the session on screen (D).
type DeleteMsg struct{}

// StatsMsg asks the root to show the session's stats (S).
type StatsMsg struct{}

// Content is what y copies and o / E open for the selected item: what it
// is ("the command", "the output") and how to get it. Read may run on
// another goroutine (it may read an output back from the session file).
type Content struct {
	What string
	Ext  string // for a file opened in a pager or an editor: .txt, .md, .diff, .json
	Read func() (string, error)
}

func constant(s string) func() (string, error) { return func() (string, error) { return s, nil } }

// CopyTarget is what y copies of the selected item: a command's command
// line, a tool's output (its input until it has one), a message's text,
// the task of a sub-agent.
func (m Model) CopyTarget() (Content, bool) {
	it := m.sel
	if it == nil {
		return Content{}, false
	}
	switch it.Kind {
	case timeline.KindBash:
		if cmd := bashCommand(it); cmd != "" {
			return Content{What: "the command", Ext: ".sh", Read: constant(cmd)}, true
		}
	case timeline.KindApproval:
		if req := it.ApprovalRequest(); req != nil {
			return Content{What: "the command", Ext: ".sh", Read: constant(req.Command)}, true
		}
	case timeline.KindTool:
		if it.ToolResult() != nil {
			return Content{What: "the output", Ext: ".txt", Read: it.FieldLater(timeline.Output)}, true
		}
		if call := it.ToolCall(); call != nil {
			return Content{What: "the input", Ext: ".json", Read: constant(prettyJSON(call.Input))}, true
		}
	case timeline.KindDelegation, timeline.KindDelegationEnd:
		if d := it.Delegation(); d != nil && d.Task != "" {
			return Content{What: "the task", Ext: ".md", Read: constant(d.Task)}, true
		}
	case timeline.KindNotice:
		return Content{What: "the notice", Ext: ".txt", Read: constant(it.Text())}, true
	}
	if c := it.Chat(); c != nil && c.Text != "" {
		return Content{What: "the message", Ext: ".md", Read: constant(c.Text)}, true
	}
	return Content{}, false
}

// OpenTarget is what o and E open of the selected item: a command's
// output (stdout, then stderr), a file edit's diff, a tool's output, a
// message's text; otherwise what y copies.
func (m Model) OpenTarget() (Content, bool) {
	it := m.sel
	if it == nil {
		return Content{}, false
	}
	switch it.Kind {
	case timeline.KindBash:
		if it.BashRun() != nil {
			stdout, stderr := it.FieldLater(timeline.Stdout), it.FieldLater(timeline.Stderr)
			return Content{What: "the output", Ext: ".txt", Read: func() (string, error) {
				out, err := stdout()
				if err != nil {
					return "", err
				}
				errOut, err := stderr()
				if err != nil {
					return "", err
				}
				if errOut == "" {
					return out, nil
				}
				if out == "" {
					return errOut, nil
				}
				return out + "\n--- stderr ---\n" + errOut, nil
			}}, true
		}
	case timeline.KindApproval:
		if req := it.ApprovalRequest(); req != nil && req.Diff != "" {
			return Content{What: "the diff", Ext: ".diff", Read: constant(req.Diff)}, true
		}
	case timeline.KindTool:
		if call := it.ToolCall(); call != nil {
			if _, diff, ok := export.EditDiff(call.Tool, call.Input); ok {
				return Content{What: "the diff", Ext: ".diff", Read: constant(diff)}, true
			}
		}
	}
	return m.CopyTarget()
}

// bashCommand is a bash item's command line.
func bashCommand(it *timeline.Item) string {
	if r := it.BashRun(); r != nil && r.Command != "" {
		return r.Command
	}
	if s := it.BashStart(); s != nil {
		return s.Command
	}
	return ""
}

// JumpFailure selects the next (dir 1) or previous (dir -1) failure after
// the selection — what the failures filter shows, whatever the filter now
// is — and reports whether there was one. A failure the filter hides
// brings back the whole timeline.
func (m *Model) JumpFailure(dir int) bool {
	items := m.tl.Items()
	from := -1
	if m.sel != nil {
		from = m.sel.Index()
	} else if dir < 0 {
		from = len(items)
	}
	for i := from + dir; i >= 0 && i < len(items); i += dir {
		it := items[i]
		if !it.Failed() || it.UsageOnly() {
			continue
		}
		if !m.filter.Match(it) {
			m.SetFilter(timeline.FilterAll)
		}
		m.follow, m.paused = false, true
		m.jumpTo(it, 0)
		return true
	}
	return false
}
