package agenttest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ToolResult is what the agent sent back to the model for one tool call.
type ToolResult struct {
	ID      string
	Output  string
	IsError bool
}

// Request is one model request as the mock understood it.
type Request struct {
	// Conversation is the index of the scripted conversation it matched,
	// -1 for a side request (a title, a quota check) or none.
	Conversation int
	// Turn is how many model replies the request already holds.
	Turn int
	// Side is set for a request that is not a conversation turn.
	Side bool
	// Results are the tool results the request carries.
	Results []ToolResult
	// Tools are the tool names the request offers the model.
	Tools []string
}

// mock is what both model mocks share: the script, the log of requests and
// the mistakes found, reported when the test ends.
type mock struct {
	t      testing.TB
	script []Conversation
	srv    *httptest.Server

	mu       sync.Mutex
	requests []Request
	results  map[string]ToolResult
	problems []string
	arrived  chan struct{} // closed (and replaced) when a request is logged
}

func newMock(t testing.TB, script []Conversation, h http.Handler) *mock {
	t.Helper()
	m := &mock{t: t, script: script, results: map[string]ToolResult{}, arrived: make(chan struct{})}
	m.srv = httptest.NewUnstartedServer(h) // listens on 127.0.0.1 only; start serves
	t.Cleanup(func() {
		m.srv.CloseClientConnections()
		m.srv.Close()
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, p := range m.problems {
			t.Errorf("model mock: %s", p)
		}
	})
	return m
}

// start serves requests. The constructors call it once the handler's
// receiver holds the mock, so no request can find it unset.
func (m *mock) start() { m.srv.Start() }

// URL is the mock's base address, http://127.0.0.1:PORT. It takes the lock
// every request takes before it replies: what the test did before handing
// the address to an agent (a script's closure reading the mock's variable)
// happens before the replies, as the race detector sees it too.
func (m *mock) URL() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.srv.URL
}

// problem notes a request the script did not expect; the test fails when
// it ends (a handler must not call t.Fatal).
func (m *mock) problem(format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	m.mu.Lock()
	m.problems = append(m.problems, msg)
	m.mu.Unlock()
	return msg
}

func (m *mock) logRequest(r Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, r)
	for _, res := range r.Results {
		m.results[res.ID] = res
	}
	close(m.arrived)
	m.arrived = make(chan struct{})
}

// hold waits until the agent has sent back the result of every call a
// reply waits for (its After parts) and the test let it go (its Until
// parts), and returns the reply without them.
// It gives up when the request is cancelled or RunTimeout passes (a hang:
// the test fails).
func (m *mock) hold(ctx context.Context, r Reply) Reply {
	out := make(Reply, 0, len(r))
	var waits []string
	var gates []<-chan struct{}
	for _, p := range r {
		switch {
		case p.kind != "after":
			out = append(out, p)
		case p.until != nil:
			gates = append(gates, p.until)
		default:
			waits = append(waits, p.after)
		}
	}
	timeout := time.NewTimer(RunTimeout)
	defer timeout.Stop()
	for _, g := range gates {
		select {
		case <-g:
		case <-ctx.Done():
			return out
		case <-timeout.C:
			m.problem("a reply waited %v for the test to let it go", RunTimeout)
			return out
		}
	}
	for _, id := range waits {
		for {
			m.mu.Lock()
			_, ok := m.results[id]
			arrived := m.arrived
			m.mu.Unlock()
			if ok {
				break
			}
			select {
			case <-arrived:
			case <-ctx.Done():
				return out
			case <-timeout.C:
				m.problem("a reply waited %v for the result of %s, which never came", RunTimeout, id)
				return out
			}
		}
	}
	return out
}

// Requests is every request served so far, in order.
func (m *mock) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Result is what the agent sent back for the tool call with this id: the
// output the model saw (a denial's reason, a command's output).
func (m *mock) Result(id string) (ToolResult, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.results[id]
	return r, ok
}

// match finds the conversation a request belongs to by its first user
// text: the one whose prompt it contains (the longest such prompt, so a
// sub-agent's prompt that quotes the main one still matches its own).
func (m *mock) match(firstUser string) int {
	best, bestLen := -1, -1
	for i, c := range m.script {
		if strings.Contains(firstUser, c.Prompt) && len(c.Prompt) > bestLen {
			best, bestLen = i, len(c.Prompt)
		}
	}
	return best
}

// reply is the scripted reply for turn n of conversation c, or an error
// message when the script has none.
func (m *mock) reply(c, n int, firstUser string) (Reply, string) {
	if c < 0 {
		return nil, m.problem("a request matches no scripted conversation; its first user text: %q", clip(firstUser, 300))
	}
	if n >= len(m.script[c].Replies) {
		return nil, m.problem("conversation %q asked for reply %d; the script has %d", clip(m.script[c].Prompt, 60), n+1, len(m.script[c].Replies))
	}
	return m.script[c].Replies[n], ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// sse writes server-sent events, flushing each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) event(name string, data []byte) {
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data)
	if s.f != nil {
		s.f.Flush()
	}
}
