package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/fsnotify/fsnotify"
)

// Reload timing.
const (
	// DefaultReloadDelay is how long changes to the settings must settle
	// before they are applied (editors write files in several steps).
	DefaultReloadDelay = 200 * time.Millisecond
	// pollInterval is how often the files are also looked at, in case a
	// file notification was missed or notifications are not available.
	pollInterval = 2 * time.Second
)

// Statuses a session ends with when the settings change under it.
const (
	StatusConfigReload      = "config_reload"
	StatusRecordingDisabled = "recording_disabled"
)

// watchedFiles are the files of a store whose changes reload the server.
func watchedFiles(dir string) []string {
	return []string{settings.ProjectFile(dir), filepath.Join(dir, approval.PolicyFile)}
}

// fingerprint sums up the watched files' sizes and times, so that a reload
// happens only when one of them changed.
func fingerprint(dir string) string {
	var b strings.Builder
	for _, p := range watchedFiles(dir) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", p, fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s:-;", p)
		}
	}
	return b.String()
}

// watch reloads the configuration whenever the settings or the policy of
// the store in dir change, until the server stops.
func (s *Server) watch(dir string) {
	defer close(s.watchDone)
	w, err := fsnotify.NewWatcher()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if err == nil {
		defer w.Close()
		// The store's directory may not exist yet: its parent tells when it appears.
		_ = w.Add(filepath.Dir(dir))
		_ = w.Add(dir)
		events, errs = w.Events, w.Errors
	}
	watched := map[string]bool{dir: true}
	for _, p := range watchedFiles(dir) {
		watched[p] = true
	}
	poll := time.NewTicker(pollInterval)
	defer poll.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	for {
		select {
		case <-s.stop.Done():
			return
		case ev := <-events:
			if !watched[ev.Name] {
				continue
			}
			if ev.Name == dir && ev.Has(fsnotify.Create) {
				_ = w.Add(dir)
			}
			settle.Reset(s.opts.ReloadDelay)
		case <-errs:
			// A lost notification is caught by the next poll.
		case <-poll.C:
			s.reload(dir)
		case <-settle.C:
			s.reload(dir)
		}
	}
}

// reload applies the store's settings and policy if they changed. Settings
// or a policy that cannot be used leave the running configuration in place;
// the problem is reported in the log, on stderr and by the health check.
func (s *Server) reload(dir string) {
	fp := fingerprint(dir)
	s.mu.Lock()
	old := s.cfg
	if old == nil || fp == s.seen || (s.seen == "" && fp == old.fprint) {
		s.mu.Unlock()
		return
	}
	s.seen = fp
	s.mu.Unlock()

	nc := s.load(dir)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg != old || s.closing() {
		return // shut down, or another reload won
	}
	if err := nc.usable(); err != nil && old.usable() == nil {
		s.reloadErr = err.Error()
		old.log().Warn("Configuration not reloaded", "error", err.Error())
		s.warn("settings not reloaded, the previous ones stay in force: " + err.Error())
		return
	}
	s.reloadErr = ""
	status := ""
	if s.gen != nil && old.usable() == nil && nc.usable() == nil {
		before, after := old.settings().Recording, nc.settings().Recording
		switch {
		case before.Enabled && !after.Enabled:
			status = StatusRecordingDisabled
		case old.proj.Store.Recordings != nc.proj.Store.Recordings:
			status = StatusConfigReload
		}
	}
	if s.gen != nil {
		s.gen.retire(status)
		s.gen = nil
	}
	s.cfg = nc
	if nc.err == nil {
		s.gen = s.newGeneration(nc)
	}
	nc.log().Info("Configuration reloaded", "store", dir, "ended_session_status", status,
		"recording_enabled", nc.settings().Recording.Enabled, "max_concurrent", nc.settings().Execution.MaxConcurrent)
	s.syncScriptsLocked(nc)
}

// reloadProblem is why the last change to the settings was not applied, if
// it was not.
func (s *Server) reloadProblem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reloadErr == "" {
		return ""
	}
	return "the settings on disk were not applied: " + s.reloadErr
}

// closing reports whether the server is shutting down.
func (s *Server) closing() bool { return s.stop.Err() != nil }
