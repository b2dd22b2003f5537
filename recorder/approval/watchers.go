package approval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// staleBeats is how many heartbeat periods may pass before a heartbeat is
// stale.
const staleBeats = 5

// Watcher is a running TUI that can answer requests: the contents of
// watchers/<pid>.json.
type Watcher struct {
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (b *Broker) heartbeat() time.Duration {
	if b.Heartbeat > 0 {
		return b.Heartbeat
	}
	return DefaultHeartbeat
}

func (b *Broker) watcherPath(pid int) string {
	return filepath.Join(b.watchersDir(), strconv.Itoa(pid)+".json")
}

// StartHeartbeat announces this process as a watcher that can answer
// requests, refreshing its heartbeat file every Heartbeat period until ctx
// is done or stop is called. stop removes the file and waits for the
// refreshing to end. The first write's failure is returned.
func (b *Broker) StartHeartbeat(ctx context.Context) (stop func(), err error) {
	if err := b.ensureDirs(b.watchersDir()); err != nil {
		return nil, err
	}
	w := Watcher{PID: os.Getpid(), StartedAt: b.now().UTC()}
	beat := func() error {
		w.UpdatedAt = b.now().UTC()
		data, err := encode(&w)
		if err != nil {
			return err
		}
		return writeAtomic(b.watcherPath(w.PID), data)
	}
	if err := beat(); err != nil {
		return nil, fmt.Errorf("announce watcher: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(b.heartbeat())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := beat(); err != nil {
					b.warn("refresh watcher heartbeat: %v", err)
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			if err := os.Remove(b.watcherPath(w.PID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				b.warn("remove watcher heartbeat: %v", err)
			}
		})
	}, nil
}

// Watchers lists the live watchers: a recent heartbeat of a process that is
// still running. Stale heartbeats are removed.
func (b *Broker) Watchers() ([]Watcher, error) {
	names, err := listJSON(b.watchersDir(), func(s string) bool {
		pid, err := strconv.Atoi(s)
		return err == nil && pid > 0 && strconv.Itoa(pid) == s
	})
	if err != nil {
		return nil, err
	}
	stale := time.Duration(staleBeats) * b.heartbeat()
	now := b.now()
	var live []Watcher
	for _, name := range names {
		p := filepath.Join(b.watchersDir(), name+".json")
		data, _, err := readTrusted(p)
		if err != nil {
			continue // unreadable, another user's or a loose file: ignored
		}
		var w Watcher
		pid, _ := strconv.Atoi(name)
		if decodeStrict(data, &w) != nil || w.PID != pid || now.Sub(w.UpdatedAt) > stale || w.UpdatedAt.After(now.Add(clockSkew)) ||
			w.StartedAt.After(w.UpdatedAt) || !alive(pid) {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				b.warn("remove stale watcher %s: %v", p, err)
			}
			continue
		}
		live = append(live, w)
	}
	return live, nil
}

// AnyWatcher reports whether a running TUI can answer a request now.
func (b *Broker) AnyWatcher() bool {
	ws, err := b.Watchers()
	if err != nil {
		b.warn("list watchers: %v", err)
	}
	return len(ws) > 0
}

// alive reports whether process pid runs and is ours to signal.
func alive(pid int) bool {
	return unix.Kill(pid, 0) == nil
}
