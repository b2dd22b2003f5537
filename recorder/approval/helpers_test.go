package approval

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// childEnv selects what a re-executed test binary does instead of testing.
const childEnv = "CUFF_APPROVAL_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "decide":
		os.Exit(childDecide())
	case "heartbeat":
		os.Exit(childHeartbeat())
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode", os.Getenv(childEnv))
		os.Exit(2)
	}
}

// childDecide waits for its standard input to close, then answers the
// request CUFF_TEST_ID in CUFF_TEST_STATE and prints "won" or "lost".
func childDecide() int {
	_, _ = io.Copy(io.Discard, os.Stdin)
	b := New(os.Getenv("CUFF_TEST_STATE"))
	ans := Approve(transcript.ScopeOnce, ByAgent)
	if os.Getenv("CUFF_TEST_ANSWER") == "deny" {
		ans = Deny("child says no", ByAgent)
	}
	_, err := b.Decide(os.Getenv("CUFF_TEST_ID"), ans)
	switch err.(type) {
	case nil:
		fmt.Println("won")
	case *AlreadyDecidedError:
		fmt.Println("lost")
	default:
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// childHeartbeat announces itself as a watcher and runs until killed.
func childHeartbeat() int {
	b := New(os.Getenv("CUFF_TEST_STATE"))
	b.Heartbeat = 50 * time.Millisecond
	stop, err := b.StartHeartbeat(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	fmt.Println("ready")
	time.Sleep(time.Minute)
	return 0
}

// child starts the test binary in a child mode with extra environment.
func child(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + mode}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// fixture is a state directory and a project with one recorded session.
type fixture struct {
	b     *Broker
	store *session.Store
	sid   string
	proj  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	proj := filepath.Join(root, "project")
	store := session.Open(filepath.Join(proj, session.DirName))
	store.NoSync = true
	w, err := store.Create(&transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceClaudeHook,
		WorkingDirectory: proj}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sid := w.ID()
	if err := w.Detach(); err != nil {
		t.Fatal(err)
	}
	b := New(filepath.Join(root, "state"))
	b.Warn = func(msg string) { t.Logf("broker: %s", msg) }
	return &fixture{b: b, store: store, sid: sid, proj: proj}
}

// request is a typical gated command of the fixture's session.
func (f *fixture) request(command string) *Request {
	return &Request{
		Session:          SessionRef{Dir: f.store.Dir, Recordings: f.store.Recordings, ID: f.sid},
		AgentSession:     "claude:11111111-2222-3333-4444-555555555555",
		Agent:            "claude-code",
		CallID:           "toolu_" + randomHex(6),
		Tool:             "Bash",
		Command:          command,
		WorkingDirectory: f.proj,
		Verdict:          transcript.Verdict{Decision: "ask", Tier: "risky", Reasons: []string{"network: curl reaches the network"}},
		Taint:            []string{"untrusted"},
	}
}

func (f *fixture) submit(t *testing.T, command string) *Request {
	t.Helper()
	r, err := f.b.Submit(f.request(command))
	if err != nil {
		t.Fatalf("submit %q: %v", command, err)
	}
	return r
}

// events returns the session's events of type typ.
func (f *fixture) events(t *testing.T, typ transcript.Type) []*transcript.Event {
	t.Helper()
	var out []*transcript.Event
	_, err := f.store.ReadEvents(f.sid, func(ev *transcript.Event) error {
		if ev.Type == typ {
			out = append(out, ev)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decidedFiles lists the names in the decided directory.
func (f *fixture) decidedFiles(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(f.b.decidedDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// writeFile writes a state file with the given mode, bypassing the broker.
func writeFile(t *testing.T, p string, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// decisionJSON is a well-formed decision file for id.
func decisionJSON(id, decision, by string) string {
	scope := ""
	if decision == transcript.DecisionApprove {
		scope = `"scope":"once",`
	}
	return fmt.Sprintf(`{"v":1,"request_id":%q,"decision":%q,%s"by":%q,"decided_at":%q}`,
		id, decision, scope, by, time.Now().UTC().Format(time.RFC3339Nano))
}
