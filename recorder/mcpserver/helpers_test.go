package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testProject is a project directory with a .cuff store.
type testProject struct {
	root, dir, state string
}

// newProject makes a project with the given settings.yml ("" for none).
func newProject(t *testing.T, settingsYAML string) *testProject {
	t.Helper()
	p := projectIn(t, t.TempDir())
	if settingsYAML != "" {
		p.write(t, "settings.yml", settingsYAML)
	}
	return p
}

// newProjectB is newProject for benchmarks.
func newProjectB(b *testing.B) *testProject { return projectIn(b, b.TempDir()) }

func projectIn(t testing.TB, base string) *testProject {
	t.Helper()
	p := &testProject{root: filepath.Join(base, "proj"), state: filepath.Join(base, "state")}
	p.dir = filepath.Join(p.root, ".cuff")
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// write writes a file of the store.
func (p *testProject) write(t testing.TB, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, name), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// open is Options.Open for tests: settings and the recordings directory, no
// fsync.
func testOpen(dir string) (*Project, error) {
	cfg, err := settings.Load(settings.ProjectFile(dir), "")
	if err != nil {
		return nil, err
	}
	s := session.Open(dir)
	s.NoSync = true
	if cfg.Recording.Directory != "" && cfg.Recording.Directory != ".cuff/recordings" {
		s.Recordings = cfg.Recording.Dir(filepath.Dir(dir))
	}
	return &Project{Store: s, Settings: cfg}, nil
}

// testCommand is Options.Command for tests.
func testCommand(cfg *settings.Settings) runner.Command {
	return runner.Command{
		Env:            runner.Env{Mode: runner.EnvInherit, Exclude: cfg.Execution.Environment.ExcludePatterns},
		MaxOutputBytes: int(cfg.Recording.MaxOutputSize),
	}
}

// testServer is a server connected to an SDK client in memory.
type testServer struct {
	srv    *Server
	client *mcp.ClientSession
	done   chan error
	cancel context.CancelFunc
}

// serve starts a server for p (named by Dir unless opts says otherwise) and
// connects a client. The server is shut down at the end of the test.
func serve(t *testing.T, p *testProject, mutate func(*Options), copts *mcp.ClientOptions, version string, roots ...string) *testServer {
	t.Helper()
	opts := Options{Version: "test", Dir: p.dir, WorkDir: p.root, StateDir: p.state, Open: testOpen, Command: testCommand,
		ReloadDelay: 20 * time.Millisecond, Warn: func(msg string) { t.Log("warn: " + msg) }}
	if mutate != nil {
		mutate(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{srv: srv, done: make(chan error, 1), cancel: cancel}
	go func() { ts.done <- srv.Run(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts)
	for _, r := range roots {
		client.AddRoots(&mcp.Root{URI: "file://" + r})
	}
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ts.client = cs
	t.Cleanup(func() { ts.stop(t) })
	return ts
}

// stop disconnects the client and waits for the server to finish.
func (ts *testServer) stop(t *testing.T) {
	t.Helper()
	if ts.client == nil {
		return
	}
	ts.client.Close()
	ts.client = nil
	select {
	case err := <-ts.done:
		if err != nil {
			t.Errorf("server: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("server did not stop after the client disconnected")
	}
	ts.cancel()
}

// call calls a tool with arguments and _meta.
func (ts *testServer) call(t *testing.T, name string, args any, meta mcp.Meta) *mcp.CallToolResult {
	t.Helper()
	res, err := ts.client.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// text is a result's text content, joined.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// decode reads a result's structured content into v.
func decode(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// events reads every event of every session of the store in dir.
func events(t *testing.T, dir string) map[string][]*transcript.Event {
	t.Helper()
	p, err := testOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return storeEvents(t, p.Store)
}

func storeEvents(t *testing.T, s *session.Store) map[string][]*transcript.Event {
	t.Helper()
	all, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*transcript.Event{}
	for _, m := range all {
		if _, err := s.ReadEvents(m.SessionID, func(ev *transcript.Event) error {
			out[m.SessionID] = append(out[m.SessionID], ev)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// ofType lists the events of one type.
func ofType(evs []*transcript.Event, typ transcript.Type) []*transcript.Event {
	var out []*transcript.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// endStatus is a session's session_end status, "" when it has not ended.
func endStatus(evs []*transcript.Event) string {
	for _, ev := range evs {
		if b, ok := ev.Body.(*transcript.SessionEnd); ok {
			return b.Status
		}
	}
	return ""
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
