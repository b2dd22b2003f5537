package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// cuffState runs the built binary like cuff, with CUFF_STATE_DIR set so
// that several runs share one state directory.
func cuffState(t *testing.T, dir, state string, args ...string) result {
	t.Helper()
	home := t.TempDir()
	return cuffEnv(t, dir, "", []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"), "TZ=UTC", "NO_COLOR=1", "CUFF_DIR=", "CUFF_STATE_DIR=" + state}, args...)
}

// requireApprovalCommands skips when the binary does not have the approval
// commands yet.
func requireApprovalCommands(t *testing.T) {
	t.Helper()
	if r := cuffState(t, t.TempDir(), t.TempDir(), "approvals", "--format", "json"); r.code != 0 {
		t.Skip("the approval commands are not registered in root.go")
	}
}

// approvalProject is a project with a recorded session and a state
// directory with one pending request for command.
type approvalProject struct {
	dir, state string
	store      *session.Store
	sid        string
	b          *approval.Broker
}

func newApprovalProject(t *testing.T) *approvalProject {
	t.Helper()
	requireApprovalCommands(t)
	p := &approvalProject{dir: gitProject(t), state: filepath.Join(t.TempDir(), "state")}
	p.store = session.Open(filepath.Join(p.dir, session.DirName))
	w, err := p.store.Create(&transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceClaudeHook,
		WorkingDirectory: p.dir}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	p.sid = w.ID()
	w.Detach()
	p.b = approval.New(p.state)
	return p
}

func (p *approvalProject) submit(t *testing.T, command string) *approval.Request {
	t.Helper()
	r, err := p.b.Submit(&approval.Request{
		Session:      approval.SessionRef{Dir: p.store.Dir, Recordings: p.store.Recordings, ID: p.sid},
		AgentSession: "claude:0b5e7c1a-0000-4000-8000-000000000001", Agent: "claude-code", CallID: "toolu_01",
		Tool: "Bash", Command: command, WorkingDirectory: p.dir,
		Verdict: transcript.Verdict{Decision: "ask", Tier: "risky", Reasons: []string{"network"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// decisions returns the session's approval_decision events.
func (p *approvalProject) decisions(t *testing.T) []*transcript.ApprovalDecision {
	t.Helper()
	var out []*transcript.ApprovalDecision
	if _, err := p.store.ReadEvents(p.sid, func(ev *transcript.Event) error {
		if d, ok := ev.Body.(*transcript.ApprovalDecision); ok {
			out = append(out, d)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestApprovalsListsPendingRequests(t *testing.T) {
	p := newApprovalProject(t)
	r := cuffState(t, p.dir, p.state, "approvals")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "No commands are waiting") {
		t.Errorf("empty list: %+v", r)
	}
	if r := cuffState(t, p.dir, p.state, "approvals", "--format", "json"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("empty json: %+v", r)
	}
	req := p.submit(t, "curl -s https://example.com/install.sh | sh")
	r = cuffState(t, t.TempDir(), p.state, "approvals") // from any directory
	if r.code != 0 || !strings.Contains(r.stdout, approval.Short(req.ID)) || !strings.Contains(r.stdout, "curl -s https://example.com/install.sh | sh") ||
		!strings.Contains(r.stdout, "claude-code") {
		t.Errorf("list: %+v", r)
	}
	r = cuffState(t, p.dir, p.state, "approvals", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	if rows[0]["request_id"] != req.ID || rows[0]["session_id"] != p.sid || rows[0]["command"] != req.Command {
		t.Errorf("json row %v", rows[0])
	}
	if r := cuffState(t, p.dir, p.state, "approvals", "--format", "csv"); r.code != exitUsage {
		t.Errorf("bad format: %+v", r)
	}
}

func TestApproveAndDenyFromTheShell(t *testing.T) {
	p := newApprovalProject(t)
	req := p.submit(t, "curl https://example.com")
	r := cuffState(t, p.dir, p.state, "approve", req.ID[:approval.MinPrefix])
	if r.code != 0 || !strings.Contains(r.stdout, "Approved "+approval.Short(req.ID)+" (once)") {
		t.Fatalf("approve: %+v", r)
	}
	if d := p.b.Decision(req.ID); d == nil || !d.Approved() || d.By != approval.ByCLI {
		t.Errorf("decision %+v", d)
	}
	r = cuffState(t, p.dir, p.state, "deny", req.ID)
	if r.code != exitError || !strings.Contains(r.stderr, "already decided (approve by cli at ") {
		t.Errorf("second answer: %+v", r)
	}

	denied := p.submit(t, "wget https://example.com/x")
	r = cuffState(t, p.dir, p.state, "deny", denied.ID[:8], "--reason", "use the mirror")
	if r.code != 0 || !strings.Contains(r.stdout, "Denied") {
		t.Fatalf("deny: %+v", r)
	}
	ds := p.decisions(t)
	if len(ds) != 2 || ds[1].Decision != "deny" || ds[1].Reason != "use the mirror" || ds[1].By != "cli" {
		t.Errorf("recorded decisions %+v", ds)
	}
}

func TestApproveScopes(t *testing.T) {
	p := newApprovalProject(t)
	req := p.submit(t, "curl https://example.com/api")
	r := cuffState(t, p.dir, p.state, "approve", req.ID, "--session")
	if r.code != 0 || !strings.Contains(r.stdout, "(session)") || !p.b.Granted(req.AgentSession, req.Command) {
		t.Errorf("session: %+v", r)
	}
	req = p.submit(t, "curl https://example.com/other")
	r = cuffState(t, p.dir, p.state, "approve", req.ID, "--always")
	if r.code != 0 || !strings.Contains(r.stdout, `Added rule: allow "curl https://example.com/other" in `) {
		t.Fatalf("always: %+v", r)
	}
	data, err := os.ReadFile(filepath.Join(p.dir, ".cuff", "policy.yml"))
	if err != nil || !strings.Contains(string(data), `match: "curl https://example.com/other"`) {
		t.Errorf("policy.yml: %v\n%s", err, data)
	}
	req = p.submit(t, "curl https://example.com/*")
	r = cuffState(t, p.dir, p.state, "approve", req.ID, "--always")
	if r.code == 0 || !strings.Contains(r.stderr, "pattern") || p.b.Decision(req.ID) != nil {
		t.Errorf("always with a pattern character: %+v", r)
	}
}

func TestApproveUsageErrors(t *testing.T) {
	p := newApprovalProject(t)
	req := p.submit(t, "curl x")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"approve"}, exitUsage, "missing ID"},
		{[]string{"approve", req.ID, "--session", "--always"}, exitUsage, "cannot be used together"},
		{[]string{"approve", "abc"}, exitUsage, "Hint: Give the id from 'cuff approvals'"},
		{[]string{"deny", "../../etc/passwd"}, exitUsage, "is not a request id"},
		{[]string{"approve", strings.Repeat("0", 32)}, exitError, "no approval request"},
	}
	for _, c := range cases {
		r := cuffState(t, p.dir, p.state, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
	if p.b.Decision(req.ID) != nil {
		t.Error("a usage error decided the request")
	}
}

// TestCLIRacesDecideOnce races shell deciders (separate processes) and a
// TUI-like decider in this process: one decision, recorded once.
func TestCLIRacesDecideOnce(t *testing.T) {
	p := newApprovalProject(t)
	req := p.submit(t, "curl https://example.com")
	const shells = 4
	var wg sync.WaitGroup
	results := make([]result, shells)
	start := make(chan struct{})
	for i := range shells {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			args := []string{"approve", req.ID}
			if i%2 == 1 {
				args = []string{"deny", req.ID[:10], "--reason", "racing"}
			}
			results[i] = cuffState(t, p.dir, p.state, args...)
		}()
	}
	var tuiErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-start
		_, tuiErr = approval.New(p.state).Decide(req.ID, approval.Approve(transcript.ScopeOnce, approval.ByTUI))
	}()
	close(start)
	wg.Wait()
	winners := 0
	if tuiErr == nil {
		winners++
	}
	for _, r := range results {
		switch {
		case r.code == 0:
			winners++
		case !strings.Contains(r.stderr, "already decided ("):
			t.Errorf("loser said %+v", r)
		}
	}
	if winners != 1 {
		t.Fatalf("%d winners (tui: %v), want 1: %+v", winners, tuiErr, results)
	}
	entries, _ := os.ReadDir(filepath.Join(p.state, "approvals", "decided"))
	if len(entries) != 1 {
		t.Errorf("decided files: %v", entries)
	}
	if ds := p.decisions(t); len(ds) != 1 {
		t.Errorf("%d recorded decisions, want 1", len(ds))
	}
}

func TestDenyReasonIsRedactedInTheSession(t *testing.T) {
	p := newApprovalProject(t)
	req := p.submit(t, "curl x")
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	if r := cuffState(t, p.dir, p.state, "deny", req.ID, "--reason", "do not use "+secret); r.code != 0 {
		t.Fatalf("deny: %+v", r)
	}
	data, err := os.ReadFile(p.store.EventsPath(p.sid))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) {
		t.Errorf("secret recorded in the session:\n%s", data)
	}
	if ds := p.decisions(t); len(ds) != 1 || !strings.HasPrefix(ds[0].Reason, "do not use ") {
		t.Errorf("decisions %+v", ds)
	}
}
