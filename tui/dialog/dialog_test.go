package dialog

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

func TestHelpShowsEveryKeyAndFits(t *testing.T) {
	km := keys.DefaultKeyMap()
	h := NewHelp(styles.New(true), "Keys: session view", km.Viewer, km.Global, km.Dialog.Close)
	for _, size := range [][2]int{{100, 30}, {160, 40}, {60, 40}} {
		box := h.View(size[0], size[1])
		plain := ansi.Strip(box)
		for _, want := range []string{"previous", "approvals", "export", "quit", "esc closes"} {
			if !strings.Contains(plain, want) {
				t.Errorf("%dx%d: the help lacks %q:\n%s", size[0], size[1], want, plain)
			}
		}
		for _, l := range strings.Split(box, "\n") {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d wide: %q", size[0], size[1], w, ansi.Strip(l))
			}
		}
		if n := strings.Count(box, "\n") + 1; n > size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], n)
		}
	}
	if _, ok := h.HandleMsg(tea.KeyPressMsg{Code: tea.KeyEscape}).(ActionClose); !ok {
		t.Error("esc does not close the help")
	}
}

func TestApprovalDefaultsToDenyAndHasGrace(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ev := transcript.New("s", now, &transcript.ApprovalRequest{RequestID: "r1", Command: "git push"})
	a := NewApproval(ev, styles.New(true), keys.DefaultKeyMap().Dialog, clock, true, "")
	if _, ok := a.HandleMsg(tea.KeyPressMsg{Code: 'y', Text: "y"}).(ActionNone); !ok {
		t.Fatal("a key in the grace period was taken")
	}
	now = now.Add(GracePeriod)
	if act, ok := a.HandleMsg(tea.KeyPressMsg{Code: tea.KeyEnter}).(ActionDeny); !ok || act.ID != "r1" {
		t.Fatalf("enter on the default choice: %#v", act)
	}
	a.HandleMsg(tea.KeyPressMsg{Code: tea.KeyLeft})
	if a.Choice() != choiceAlways {
		t.Fatalf("left from deny gives %d", a.Choice())
	}
	for k, want := range map[string]Action{
		"y": ActionApprove{ID: "r1", Scope: "once"},
		"s": ActionApprove{ID: "r1", Scope: "session"},
		"A": ActionApprove{ID: "r1", Scope: "always"},
		"n": ActionDeny{ID: "r1", Reason: "denied in the TUI"},
	} {
		if got := a.HandleMsg(tea.KeyPressMsg{Code: rune(k[0]), Text: k}); got != want {
			t.Errorf("%s: %#v, want %#v", k, got, want)
		}
	}
	if _, ok := a.HandleMsg(tea.KeyPressMsg{Code: tea.KeyEscape}).(ActionLater); !ok {
		t.Error("esc does not put the request off")
	}
	hostile := transcript.New("s", now, &transcript.ApprovalRequest{RequestID: "r2", Command: "x\x1b]52;c;aGk=\x07"})
	box := NewApproval(hostile, styles.New(true), keys.DefaultKeyMap().Dialog, clock, false, "").View(80, 24)
	if strings.Contains(box, "\x1b]") || !strings.Contains(ansi.Strip(box), `\x1b]52`) {
		t.Error("the prompt does not escape the command")
	}
}

func TestStack(t *testing.T) {
	var s Stack
	km := keys.DefaultKeyMap()
	s.Push(NewHelp(styles.New(true), "", km.Viewer, km.Global, km.Dialog.Close))
	ev := transcript.New("s", time.Now(), &transcript.ApprovalRequest{RequestID: "r1"})
	s.Push(NewApproval(ev, styles.New(true), km.Dialog, nil, false, ""))
	if s.Len() != 2 || s.Top().ID() != "r1" || !s.Has("help") {
		t.Fatal("push")
	}
	s.Remove("help")
	if s.Len() != 1 || s.Has("help") {
		t.Fatal("remove")
	}
	s.Pop()
	if s.Top() != nil {
		t.Fatal("pop")
	}
}
