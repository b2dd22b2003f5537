// Package applog is cuff's own structured log: JSON lines in
// .cuff/logs/cuff.log, opened only when the first message is written so
// that commands that log nothing create nothing.
package applog

import (
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// Component is the value of the "plugin" field on every record.
const Component = "cuff"

// Log is a logger whose file is created lazily.
type Log struct {
	Logger *slog.Logger
	w      *lazyFile
}

// Open returns a logger writing to <dir>/logs/cuff.log at level (debug,
// info, warn or error; anything else means info). With an empty dir it
// discards everything.
func Open(dir, level string) *Log {
	if dir == "" {
		return &Log{Logger: slog.New(slog.DiscardHandler)}
	}
	var lv slog.Level
	if lv.UnmarshalText([]byte(level)) != nil {
		lv = slog.LevelInfo
	}
	w := &lazyFile{path: filepath.Join(dir, "logs", "cuff.log")}
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv})
	return &Log{Logger: slog.New(h).With("plugin", Component), w: w}
}

// Close closes the file if it was opened.
func (l *Log) Close() error {
	if l.w == nil {
		return nil
	}
	return l.w.close()
}

// OnCreate sets fn to be called with the store's directory (the dir given
// to Open) when the first message creates it.
func (l *Log) OnCreate(fn func(dir string)) {
	if l.w != nil {
		l.w.mu.Lock()
		l.w.created = fn
		l.w.mu.Unlock()
	}
}

// WithSession returns a logger that adds the session id to every record.
func WithSession(l *slog.Logger, sessionID string) *slog.Logger {
	return l.With("session_id", sessionID)
}

// lazyFile opens its file on the first write. A log that cannot be written
// never fails the command that logs.
type lazyFile struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	bad     bool
	created func(dir string) // called when opening the file created the store's directory
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && !l.bad {
		store := filepath.Dir(filepath.Dir(l.path))
		_, err := os.Stat(store)
		missing := os.IsNotExist(err)
		if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err == nil {
			l.f, _ = os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		}
		l.bad = l.f == nil
		if missing && l.f != nil && l.created != nil {
			l.created(store)
		}
	}
	if l.f == nil {
		return len(p), nil
	}
	return l.f.Write(p)
}

func (l *lazyFile) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
