package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/workspace"
	"github.com/cuff-dev/cuff/session"
)

// Live is a conversation followed live, as `cuff watch` and the TUI follow
// it, in the test's own process, while the agent runs.
type Live struct {
	t      testing.TB
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	events []Event
	err    error
	grew   chan struct{} // closed (and replaced) when an event arrives
}

// FollowLive follows conversation id (claude:<uuid>, codex:<uuid>) from the
// project's workspace, as cuff's front ends open it: source "project" is
// the joined session (what `cuff watch` shows), "claude" or "codex" the
// agent's transcript alone (with its sub-agents' files). It waits until
// the conversation is there to follow (the agent started it) and returns;
// the events come in the background until Stop.
func (e *Env) FollowLive(id, source string) *Live {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &Live{t: e.t, cancel: cancel, done: make(chan struct{}), grew: make(chan struct{})}
	env := e.Environ()
	started := make(chan struct{})
	var once sync.Once
	fn := func(it session.FollowItem) {
		once.Do(func() { close(started) })
		if it.Event == nil {
			return
		}
		b, err := json.Marshal(it.Event)
		var ev Event
		if err == nil {
			err = json.Unmarshal(b, &ev)
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if err != nil {
			l.err = err
			return
		}
		l.events = append(l.events, ev)
		close(l.grew)
		l.grew = make(chan struct{})
	}
	go func() {
		defer close(l.done)
		err := follow(ctx, env, e.Project, id, source, fn)
		l.mu.Lock()
		if l.err == nil && err != nil && ctx.Err() == nil {
			l.err = err
		}
		l.mu.Unlock()
		once.Do(func() { close(started) })
	}()
	e.t.Cleanup(func() { cancel(); <-l.done })
	select {
	case <-started:
	case <-time.After(WatchTimeout):
		e.t.Fatalf("%s (--source %s) could not be followed within %v", id, source, WatchTimeout)
	}
	l.mu.Lock()
	err := l.err
	l.mu.Unlock()
	if err != nil {
		e.t.Fatalf("follow %s (--source %s): %v", id, source, err)
	}
	return l
}

// follow opens the project's workspace and follows the conversation until
// ctx is done, looking again while the conversation is not there yet.
func follow(ctx context.Context, env []string, project, id, source string, fn func(session.FollowItem)) error {
	getenv := func(k string) string { return workspace.Lookup(env, k) }
	for {
		err := followOnce(ctx, getenv, project, id, source, fn)
		var nf *session.NotFoundError
		var fnf *session.ForeignNotFoundError
		if !errors.As(err, &nf) && !errors.As(err, &fnf) && !errors.Is(err, errNoSource) {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(20 * time.Millisecond): // the conversation is not listed yet: no signal to wait on
		}
	}
}

var errNoSource = errors.New("no such source yet")

func followOnce(ctx context.Context, getenv func(string) string, project, id, source string, fn func(session.FollowItem)) error {
	w, err := workspace.Open(workspace.Env{Cwd: project, Getenv: getenv})
	if err != nil {
		return err
	}
	if source == "project" {
		return w.Joined().Follow(ctx, id, fn)
	}
	for _, f := range w.ForeignSources() {
		if f.Name() == source {
			return f.Follow(ctx, id, fn)
		}
	}
	return errNoSource
}

// WaitFor waits until the events followed so far satisfy done, and fails
// the test when they do not within RunTimeout.
func (l *Live) WaitFor(what string, done func([]Event) bool) {
	l.t.Helper()
	timeout := time.After(RunTimeout)
	for {
		l.mu.Lock()
		evs, grew, err := l.events, l.grew, l.err
		l.mu.Unlock()
		if err != nil {
			l.t.Fatalf("following live: %v", err)
		}
		if done(evs) {
			return
		}
		select {
		case <-grew:
		case <-l.done:
			l.t.Fatalf("the live follow ended before %s:\n\t%s", what, joinLines(Story(evs)))
		case <-timeout:
			l.t.Fatalf("the live follow never showed %s within %v:\n\t%s", what, RunTimeout, joinLines(Story(evs)))
		}
	}
}

// Stop ends the follow and returns every event it saw, in the order seen.
func (l *Live) Stop() []Event {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}
