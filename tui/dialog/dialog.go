// Package dialog holds the TUI's dialogs: small models on a stack that
// take the keyboard while open and answer with typed actions, which the
// root handles in one place. Dialogs never reach into their parent.
package dialog

import (
	tea "charm.land/bubbletea/v2"
)

// Action is what a dialog asks the root to do after a message.
type Action interface{ isAction() }

// ActionNone: nothing to do; the dialog stays open.
type ActionNone struct{}

// ActionClose: close the dialog.
type ActionClose struct{}

// ActionApprove approves a request, once, for the session or always.
type ActionApprove struct {
	ID    string
	Scope string
}

// ActionDeny denies a request.
type ActionDeny struct {
	ID     string
	Reason string
}

// ActionLater closes an approval prompt without deciding; the request
// stays pending and can be answered later.
type ActionLater struct{ ID string }

func (ActionNone) isAction()    {}
func (ActionClose) isAction()   {}
func (ActionApprove) isAction() {}
func (ActionDeny) isAction()    {}
func (ActionLater) isAction()   {}

// Dialog is one dialog.
type Dialog interface {
	// ID names the dialog, e.g. the request id of an approval prompt.
	ID() string
	// HandleMsg handles a message while the dialog is on top.
	HandleMsg(msg tea.Msg) Action
	// View draws the dialog box for a screen of the given size.
	View(width, height int) string
}

// Stack is the open dialogs; the last one is on top and has the keyboard.
type Stack struct{ ds []Dialog }

// Push opens d on top.
func (s *Stack) Push(d Dialog) { s.ds = append(s.ds, d) }

// Top is the dialog on top, or nil.
func (s *Stack) Top() Dialog {
	if len(s.ds) == 0 {
		return nil
	}
	return s.ds[len(s.ds)-1]
}

// Len is how many dialogs are open.
func (s *Stack) Len() int { return len(s.ds) }

// Pop closes the dialog on top.
func (s *Stack) Pop() {
	if len(s.ds) > 0 {
		s.ds = s.ds[:len(s.ds)-1]
	}
}

// Remove closes the dialog with the given id, wherever it is.
func (s *Stack) Remove(id string) {
	out := s.ds[:0]
	for _, d := range s.ds {
		if d.ID() != id {
			out = append(out, d)
		}
	}
	s.ds = out
}

// Find is the open dialog with the given id, or nil.
func (s *Stack) Find(id string) Dialog {
	for _, d := range s.ds {
		if d.ID() == id {
			return d
		}
	}
	return nil
}

// Has reports whether a dialog with the given id is open.
func (s *Stack) Has(id string) bool {
	for _, d := range s.ds {
		if d.ID() == id {
			return true
		}
	}
	return false
}
