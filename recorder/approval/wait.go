package approval

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// notifier delivers a signal whenever something changes in the watched
// directories. Without file notifications (or when they fail) it delivers
// nothing and the callers' polling takes over.
type notifier struct {
	w  *fsnotify.Watcher
	C  chan string // names of changed files, or "" after an error
	do chan struct{}
}

func (b *Broker) notify(dirs ...string) *notifier {
	n := &notifier{C: make(chan string, 1), do: make(chan struct{})}
	if b.noNotify {
		return n
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.warn("file notifications unavailable, polling: %v", err)
		return n
	}
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			b.warn("watch %s, polling instead: %v", d, err)
		}
	}
	n.w = w
	go n.run()
	return n
}

func (n *notifier) run() {
	defer close(n.do)
	for {
		select {
		case ev, ok := <-n.w.Events:
			if !ok {
				return
			}
			n.send(filepath.Base(ev.Name))
		case _, ok := <-n.w.Errors:
			if !ok {
				return
			}
			n.send("") // events may have been lost: look at everything
		}
	}
}

// send delivers name without blocking; a pending signal is replaced by a
// general one, since the receiver rescans anyway.
func (n *notifier) send(name string) {
	select {
	case n.C <- name:
	default:
		select {
		case <-n.C:
		default:
		}
		select {
		case n.C <- "":
		default:
		}
	}
}

func (n *notifier) close() {
	if n.w == nil {
		return
	}
	n.w.Close()
	<-n.do
}

// recordWait bounds how long Wait waits for a decider to record its
// decision event.
const recordWait = 2 * time.Second

// Wait blocks until request id is decided and returns the decision. When
// the request expires first, it is decided as a timeout (by "timeout",
// recorded once however many wait) and that decision is returned; a timeout
// is a denial. A decision is noticed at once through file notifications,
// else by polling every PollInterval.
func (b *Broker) Wait(ctx context.Context, id string) (*Decision, error) {
	if err := b.ensureDirs(b.pendingDir(), b.decidedDir()); err != nil {
		return nil, err
	}
	n := b.notify(b.decidedDir())
	defer n.close()
	r, err := b.Get(id)
	if err != nil {
		// The request is gone: only a refusal counts, never an approval
		// for a request that does not exist.
		if d := b.Decision(id); d != nil && !d.Approved() {
			return d, nil
		}
		return nil, err
	}
	expiry := time.NewTimer(time.Until(r.ExpiresAt))
	defer expiry.Stop()
	tick := time.NewTicker(b.poll())
	defer tick.Stop()
	want := id + ".json"
	var seen time.Time // when an unrecorded decision was first seen
	for {
		if d := b.decisionOn(r); d != nil {
			// Return once the decision event is in the session, so that what
			// the requester records next comes after it; a decider that died
			// before recording is not waited for long.
			if d.Recorded || d.PID <= 0 || !alive(d.PID) {
				return d, nil
			}
			if seen.IsZero() {
				seen = time.Now()
			} else if time.Since(seen) > recordWait {
				return d, nil
			}
		}
		if !b.now().Before(r.ExpiresAt) {
			return b.expire(r)
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case name := <-n.C:
				if name == "" || name == want || strings.HasPrefix(name, want+".") {
					break wait
				}
			case <-tick.C:
				break wait
			case <-expiry.C:
				break wait
			}
		}
	}
}

// UpdateKind says what changed among the requests.
type UpdateKind int

// What Watch reports.
const (
	// Requested is a request waiting for an answer.
	Requested UpdateKind = iota + 1
	// Decided is the decision on a request reported before.
	Decided
	// Withdrawn is a request reported before that disappeared undecided.
	Withdrawn
)

func (k UpdateKind) String() string {
	switch k {
	case Requested:
		return "requested"
	case Decided:
		return "decided"
	case Withdrawn:
		return "withdrawn"
	}
	return "unknown"
}

// Update is one change reported by Watch.
type Update struct {
	Kind     UpdateKind
	Request  *Request
	Decision *Decision // for Decided
}

// expireSlack lets a requester that is still alive decide its own timeout
// before a watcher does it for a requester that died.
const expireSlack = 2 * time.Second

// Watch reports the pending requests, then every new request and every
// decision on a reported request as they appear, until ctx is done. A
// request whose requester died is decided as a timeout shortly after it
// expires. fn runs on Watch's goroutine, in order.
func (b *Broker) Watch(ctx context.Context, fn func(Update)) error {
	if err := b.ensureDirs(b.pendingDir(), b.decidedDir()); err != nil {
		return err
	}
	n := b.notify(b.pendingDir(), b.decidedDir())
	defer n.close()
	tick := time.NewTicker(b.poll())
	defer tick.Stop()
	open := map[string]*Request{}
	for {
		b.scan(open, fn)
		select {
		case <-ctx.Done():
			return nil
		case <-n.C:
		case <-tick.C:
		}
	}
}

// scan compares the files with the open requests already reported.
func (b *Broker) scan(open map[string]*Request, fn func(Update)) {
	pending, err := b.Pending()
	if err != nil {
		b.warn("list approval requests: %v", err)
		return
	}
	listed := make(map[string]bool, len(pending))
	for _, r := range pending {
		listed[r.ID] = true
		if _, ok := open[r.ID]; !ok {
			open[r.ID] = r
			fn(Update{Kind: Requested, Request: r})
		}
	}
	now := b.now()
	for id, r := range open {
		if listed[id] {
			continue
		}
		if d := b.decisionOn(r); d != nil {
			delete(open, id)
			fn(Update{Kind: Decided, Request: r, Decision: d})
			continue
		}
		if _, _, err := b.readRequest(id); err != nil {
			delete(open, id)
			fn(Update{Kind: Withdrawn, Request: r})
			continue
		}
		if r.PID > 0 && !alive(r.PID) { // its requester died: no one waits for an answer
			if d, err := b.WithdrawBecause(id, withdrawnGone); err == nil {
				delete(open, id)
				fn(Update{Kind: Decided, Request: r, Decision: d})
				continue
			}
		}
		if now.After(r.ExpiresAt.Add(expireSlack)) {
			d, err := b.expire(r)
			if err != nil {
				b.warn("expire request %s: %v", id, err)
				continue
			}
			delete(open, id)
			fn(Update{Kind: Decided, Request: r, Decision: d})
		}
	}
}
