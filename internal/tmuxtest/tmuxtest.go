// Package tmuxtest drives a program in a real terminal for end-to-end
// tests: a detached tmux session on a server of its own (a unique socket),
// read with capture-pane and typed into with send-keys, killed when the
// test ends. Only that server is ever killed.
package tmuxtest

import (
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ScreenWait bounds how long WaitScreen waits: long enough for a loaded
// 2-core CI machine (it is only reached when a test fails).
const ScreenWait = 30 * time.Second

// pollInterval is how often WaitScreen looks at the pane.
const pollInterval = 20 * time.Millisecond

// Session is one program running in its own tmux server.
type Session struct {
	t      *testing.T
	socket string
}

// Start runs the shell command line in a detached 120×40 session. The
// test is skipped when tmux is not installed.
func Start(t *testing.T, cmdline string) *Session {
	t.Helper()
	return StartSized(t, 120, 40, cmdline)
}

// StartSized is Start in a terminal of width×height cells.
func StartSized(t *testing.T, width, height int, cmdline string) *Session {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s := &Session{t: t, socket: "cuff-e2e-" + hex.EncodeToString(b[:])}
	s.Tmux("new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-s", "e2e", cmdline+"; sleep 60")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

// Tmux runs a tmux command against the session's server.
func (s *Session) Tmux(args ...string) string {
	s.t.Helper()
	out, err := s.TryTmux(args...)
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return out
}

// TryTmux runs a tmux command that may fail (show-buffer with no buffer).
// The server reads no configuration file, so the tester's ~/.tmux.conf
// (default shell, status line, sizes) never changes what a test sees.
func (s *Session) TryTmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-f", "/dev/null", "-L", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// Screen is what the pane shows now.
func (s *Session) Screen() string { return s.Tmux("capture-pane", "-p", "-t", "e2e") }

// WaitScreen polls the pane until it shows every text, and returns it.
func (s *Session) WaitScreen(texts ...string) string {
	s.t.Helper()
	return s.WaitScreenFor(ScreenWait, texts...)
}

// WaitScreenFor is WaitScreen with its own bound, for slow work.
func (s *Session) WaitScreenFor(d time.Duration, texts ...string) string {
	s.t.Helper()
	screen, ok := s.Shows(d, texts...)
	if !ok {
		s.t.Fatalf("the screen never showed %q:\n%s", texts, screen)
	}
	return screen
}

// Shows polls the pane for up to d until it shows every text, and reports
// whether it did, with the last screen seen.
func (s *Session) Shows(d time.Duration, texts ...string) (string, bool) {
	s.t.Helper()
	return s.poll(d, func(screen string) bool {
		for _, x := range texts {
			if !strings.Contains(screen, x) {
				return false
			}
		}
		return true
	})
}

// Gone polls the pane for up to d until it no longer shows text, and
// reports whether it went, with the last screen seen.
func (s *Session) Gone(d time.Duration, text string) (string, bool) {
	s.t.Helper()
	return s.poll(d, func(screen string) bool { return !strings.Contains(screen, text) })
}

func (s *Session) poll(d time.Duration, done func(string) bool) (string, bool) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := s.Screen()
		if done(screen) {
			return screen, true
		}
		if time.Now().After(deadline) {
			return screen, false
		}
		time.Sleep(pollInterval)
	}
}

// WaitFor polls the pane until ok says yes of it, and returns it; what
// names the wait in the failure.
func (s *Session) WaitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(ScreenWait)
	for {
		screen := s.Screen()
		if ok(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %s:\n%s", what, screen)
		}
		time.Sleep(pollInterval)
	}
}

// Keys sends keys (tmux key names: Enter, Escape, C-e, …).
func (s *Session) Keys(keys ...string) {
	s.Tmux(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// Type types text literally.
func (s *Session) Type(text string) { s.Keys("-l", text) }
