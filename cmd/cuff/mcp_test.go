package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpProject is a project with a store and its own user state directory.
type mcpProject struct {
	root, dir, state, home string
	env                    []string // more environment for cuff mcp
}

func newMCPProject(t *testing.T, settingsYAML, policy string) *mcpProject {
	t.Helper()
	requireMCPCommand(t)
	base := t.TempDir()
	p := &mcpProject{root: filepath.Join(base, "proj"), state: filepath.Join(base, "state"), home: filepath.Join(base, "home")}
	p.dir = filepath.Join(p.root, ".cuff")
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"settings.yml": settingsYAML, "policy.yml": policy} {
		if data != "" {
			if err := os.WriteFile(filepath.Join(p.dir, name), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return p
}

// requireMCPCommand skips when the binary does not have `cuff mcp` yet.
func requireMCPCommand(t *testing.T) {
	t.Helper()
	// With no input a registered `cuff mcp` stops at once.
	if r := cuff(t, t.TempDir(), "", "mcp"); strings.Contains(r.stderr, `unknown command "mcp"`) {
		t.Skip("cuff mcp is not registered in root.go: add a.mcpCommand() to rootCommand")
	}
}

// command is `cuff mcp` for the project, run in its root.
func (p *mcpProject) command(args ...string) *exec.Cmd {
	cmd := exec.Command(cuffBin, append([]string{"mcp"}, args...)...)
	cmd.Dir = p.root
	cmd.Env = append(os.Environ(), "HOME="+p.home, "XDG_CONFIG_HOME="+filepath.Join(p.home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(p.home, ".state"), "TZ=UTC", "NO_COLOR=1", "CUFF_DIR=", "CUFF_STATE_DIR="+p.state)
	cmd.Env = append(cmd.Env, p.env...)
	return cmd
}

// mcpSession is the SDK client talking to a `cuff mcp` process over its stdin and stdout.
type mcpSession struct {
	*mcp.ClientSession
	stderr *syncBuffer
}

// connect starts `cuff mcp` and connects the SDK client to it.
func (p *mcpProject) connect(t *testing.T, args ...string) *mcpSession {
	t.Helper()
	cmd := p.command(args...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cuff-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	s := &mcpSession{ClientSession: cs, stderr: stderr}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("cuff mcp stderr:\n%s", stderr)
		}
	})
	return s
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine of exec.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// execute calls bash_recorder.execute and decodes its result.
func (s *mcpSession) execute(t *testing.T, args map[string]any) (*mcp.CallToolResult, execOut) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash_recorder.execute", Arguments: args})
	if err != nil {
		t.Fatalf("execute %v: %v", args, err)
	}
	var out execOut
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("decode %s: %v", data, err)
		}
	}
	return res, out
}

type execOut struct {
	Stdout, Stderr   string
	ExitCode         *int    `json:"exit_code"`
	TimedOut         bool    `json:"timed_out"`
	DurationMS       int64   `json:"duration_ms"`
	RecordingID      *string `json:"recording_id"`
	SessionID        *string `json:"session_id"`
	WorkingDirectory string  `json:"working_directory"`
	OutputTruncated  bool    `json:"output_truncated"`
	OmittedBytes     int64   `json:"omitted_bytes"`
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// sessionEvents reads one session of the project's store.
func (p *mcpProject) sessionEvents(t *testing.T, id string) []*transcript.Event {
	t.Helper()
	var evs []*transcript.Event
	if _, err := session.Open(p.dir).ReadEvents(id, func(ev *transcript.Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return evs
}

func endOf(evs []*transcript.Event) string {
	for _, ev := range evs {
		if b, ok := ev.Body.(*transcript.SessionEnd); ok {
			return b.Status
		}
	}
	return ""
}

func TestMCPListTools(t *testing.T) {
	p := newMCPProject(t, "", "")
	s := p.connect(t)
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"bash_recorder.execute", "bash_recorder.session_info", "bash_recorder.list_recent", "bash_recorder.health"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	u := p.connect(t, "--tool-separator", "_")
	res, err = u.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if strings.Contains(tl.Name, ".") {
			t.Errorf("--tool-separator _ left a dot in %s", tl.Name)
		}
	}
	if r := cuff(t, p.root, "", "mcp", "--tool-separator", "/"); r.code != exitUsage || !strings.Contains(r.stderr, "--tool-separator") || r.stdout != "" {
		t.Errorf("bad separator: %+v", r)
	}
}

func TestMCPExecuteCommands(t *testing.T) {
	p := newMCPProject(t, "recording:\n  max_output_size: 65536\n", "")
	s := p.connect(t)

	res, out := s.execute(t, map[string]any{"command": "echo hello; echo oops >&2", "description": "greet"})
	if res.IsError || out.Stdout != "hello\n" || out.Stderr != "oops\n" || out.ExitCode == nil || *out.ExitCode != 0 ||
		out.RecordingID == nil || out.WorkingDirectory != p.root {
		t.Fatalf("success: %s", resultText(res))
	}
	runs := 0
	for _, ev := range p.sessionEvents(t, *out.SessionID) {
		if b, ok := ev.Body.(*transcript.BashRun); ok {
			runs++
			if ev.ID != *out.RecordingID || b.Description != "greet" || b.Stdout != "hello\n" {
				t.Errorf("recorded run = %s %+v", ev.ID, b)
			}
		}
	}
	if runs != 1 {
		t.Errorf("recorded %d runs", runs)
	}

	// The recording is redacted; what the agent asked for is not.
	res, out = s.execute(t, map[string]any{"command": "echo key AKIAIOSFODNN7EXAMPLE"})
	if res.IsError || !strings.Contains(out.Stdout, "AKIAIOSFODNN7EXAMPLE") {
		t.Errorf("secret command: %s", resultText(res))
	}
	for _, ev := range p.sessionEvents(t, *out.SessionID) {
		if b, ok := ev.Body.(*transcript.BashRun); ok && strings.Contains(b.Command+b.Stdout, "AKIAIOSFODNN7EXAMPLE") {
			t.Errorf("recorded unredacted: %+v", b)
		}
	}

	res, out = s.execute(t, map[string]any{"command": "echo bad >&2; exit 7"})
	if !res.IsError || out.ExitCode == nil || *out.ExitCode != 7 || out.Stderr != "bad\n" {
		t.Errorf("failure: %s", resultText(res))
	}

	res, out = s.execute(t, map[string]any{"command": "echo started; sleep 30", "timeout": 3}) // 3 s: the echo comes first even under load
	if !res.IsError || !out.TimedOut || out.ExitCode != nil || out.Stdout != "started\n" || !strings.Contains(resultText(res), "timed out") {
		t.Errorf("timeout: %s", resultText(res))
	}

	res, out = s.execute(t, map[string]any{"command": "head -c 5000000 /dev/zero | tr '\\0' y; echo; echo TAIL"})
	if res.IsError || !out.OutputTruncated || out.OmittedBytes < 4_900_000 || len(out.Stdout) > 2*65536 || !strings.HasSuffix(out.Stdout, "TAIL\n") {
		t.Errorf("huge output: truncated=%v omitted=%d kept=%d", out.OutputTruncated, out.OmittedBytes, len(out.Stdout))
	}
}

// decide plays a person at the TUI: a heartbeat so that a watcher counts,
// and the answer to every request.
func decide(t *testing.T, state string, answer approval.Answer) {
	t.Helper()
	b := approval.New(state)
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := b.StartHeartbeat(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Watch(ctx, func(u approval.Update) {
			if u.Kind == approval.Requested {
				if _, err := b.Decide(u.Request.ID, answer); err != nil {
					t.Errorf("decide: %v", err)
				}
			}
		})
	}()
	t.Cleanup(func() {
		stop()
		cancel()
		<-done
	})
}

func TestMCPGatedCommandApproved(t *testing.T) {
	// An ask rule gates a harmless command, so approving it reaches no network.
	p := newMCPProject(t, "", "rules:\n  - match: \"echo gated *\"\n    action: ask\n    reason: \"the test gates it\"\n")
	decide(t, p.state, approval.Approve("once", approval.ByTUI))
	s := p.connect(t)
	res, out := s.execute(t, map[string]any{"command": "echo gated hello"})
	if res.IsError || out.Stdout != "gated hello\n" {
		t.Fatalf("approved: %s", resultText(res))
	}
	var types []transcript.Type
	for _, ev := range p.sessionEvents(t, *out.SessionID) {
		types = append(types, ev.Type)
	}
	for _, want := range []transcript.Type{transcript.TypeApprovalRequest, transcript.TypeApprovalDecision, transcript.TypeBashRun} {
		if !slices.Contains(types, want) {
			t.Errorf("session lacks %s: %v", want, types)
		}
	}
}

func TestMCPGatedCommandDenied(t *testing.T) {
	p := newMCPProject(t, "", "")
	decide(t, p.state, approval.Deny("not on my watch", approval.ByTUI))
	s := p.connect(t)
	res, _ := s.execute(t, map[string]any{"command": "curl http://example.invalid"})
	if !res.IsError || !strings.Contains(resultText(res), "denied by the user in cuff's TUI: not on my watch") {
		t.Errorf("denied: %s", resultText(res))
	}
}

func TestMCPNoWatcherDeniesAtOnce(t *testing.T) {
	p := newMCPProject(t, "", "")
	s := p.connect(t)
	res, _ := s.execute(t, map[string]any{"command": "curl http://example.invalid"})
	msg := resultText(res)
	if !res.IsError || !strings.Contains(msg, "no cuff TUI is watching") || !strings.Contains(msg, "mcp_no_watcher") {
		t.Errorf("no watcher: %s", msg)
	}
	// Nothing is left waiting.
	if pending, err := approval.New(p.state).Pending(); err != nil || len(pending) != 0 {
		t.Errorf("pending after an immediate answer: %v %v", pending, err)
	}
}

func TestMCPMalformedArguments(t *testing.T) {
	p := newMCPProject(t, "", "")
	s := p.connect(t)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, `"command" is required`},
		{map[string]any{"command": []int{1}}, `"command" must be a string, got an array`},
		{map[string]any{"command": "ls", "timeout": -1}, `"timeout" must be a whole number of seconds from 1 to 600, got -1`},
		{map[string]any{"command": "ls", "shell": true}, `unknown argument "shell"`},
	} {
		res, _ := s.execute(t, c.args)
		if !res.IsError || !strings.Contains(resultText(res), c.want) {
			t.Errorf("%v: %s, want %q", c.args, resultText(res), c.want)
		}
	}
	if res, out := s.execute(t, map[string]any{"command": "echo alive"}); res.IsError || out.Stdout != "alive\n" {
		t.Errorf("after malformed calls: %s", resultText(res))
	}
}

// rawServer is `cuff mcp` driven over raw pipes, so that the test can read
// every byte it writes to stdout and vanish like a killed client.
type rawServer struct {
	cmd    *exec.Cmd
	stdin  *os.File // the test's ends of the pipes
	out    *os.File
	stdout *bufio.Reader
	done   chan error
	stderr *syncBuffer
}

func (p *mcpProject) startRaw(t *testing.T) *rawServer {
	t.Helper()
	cmd := p.command()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &rawServer{cmd: cmd, stdin: inW, out: outR, stdout: bufio.NewReader(outR), done: make(chan error, 1), stderr: &syncBuffer{}}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("cuff mcp did not exit")
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", r.stderr)
		}
	})
	return r
}

func (r *rawServer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := r.stdin.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// read returns the next message on stdout, which must be JSON-RPC.
func (r *rawServer) read(t *testing.T) map[string]any {
	t.Helper()
	line, err := r.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("read stdout: %v (%q)", err, line)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
		t.Fatalf("stdout holds something other than the protocol: %q", line)
	}
	return m
}

// readID reads messages until the response to id.
func (r *rawServer) readID(t *testing.T, id float64) map[string]any {
	t.Helper()
	for {
		if m := r.read(t); m["id"] == id {
			return m
		}
	}
}

const rawInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestMCPStdoutIsOnlyTheProtocol(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	r.send(t, rawInitialize)
	r.readID(t, 1)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash_recorder.execute","arguments":{"command":"echo to-stdout; echo to-stderr >&2; cat"}}}`)
	resp := r.readID(t, 2)
	data, _ := json.Marshal(resp)
	if !strings.Contains(string(data), `to-stdout`) || strings.Contains(string(data), `"isError":true`) {
		t.Errorf("call: %s", data)
	}
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash_recorder.execute","arguments":"ls"}}`)
	data, _ = json.Marshal(r.readID(t, 3))
	if !strings.Contains(string(data), "arguments must be a JSON object") && !strings.Contains(string(data), `"error"`) {
		t.Errorf("arguments that are a string: %s", data)
	}
	r.stdin.Close() // end of input: a clean shutdown
	if rest, _ := r.stdout.ReadString(0); strings.TrimSpace(rest) != "" {
		for _, line := range strings.Split(strings.TrimSpace(rest), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) != nil {
				t.Errorf("stdout after the calls holds %q", line)
			}
		}
	}
	if err := <-r.done; err != nil {
		t.Errorf("exit after end of input: %v", err)
	}
	r.done <- nil
}

// pidOf waits for the pid a command wrote to path.
func pidOf(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(data), "\n") {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the command did not write its pid")
	return 0
}

// onlySession returns the project's one session.
func (p *mcpProject) onlySession(t *testing.T) string {
	t.Helper()
	all, err := session.Open(p.dir).Sessions()
	if err != nil || len(all) != 1 {
		t.Fatalf("sessions: %v %v", all, err)
	}
	return all[0].SessionID
}

// startSleeping initializes the session and calls execute (id 2) with a
// command whose process group sleeps for two minutes; it returns that
// group's id once the command runs.
func (r *rawServer) startSleeping(t *testing.T) int {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	r.send(t, rawInitialize)
	r.readID(t, 1)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": "bash_recorder.execute", "arguments": map[string]any{"command": "echo $$ > " + pidFile + "; sleep 120 & sleep 120"}}})
	r.send(t, string(call))
	return pidOf(t, pidFile)
}

func TestMCPClientDisconnectMidCall(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	pgid := r.startSleeping(t)
	// The client dies: both pipes close under the server, so writing the
	// answer fails (EPIPE) and must not kill cuff before it records.
	r.stdin.Close()
	r.out.Close()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("exit after the client went away: %v", err)
		}
		r.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("cuff mcp kept running after the client went away")
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		t.Fatalf("the command's process group %d is still there (%v)", pgid, err)
	}
	evs := p.sessionEvents(t, p.onlySession(t))
	if st := endOf(evs); st != transcript.StatusShutdown {
		t.Errorf("session end status %q, want shutdown", st)
	}
	var run *transcript.BashRun
	for _, ev := range evs {
		if b, ok := ev.Body.(*transcript.BashRun); ok {
			run = b
		}
	}
	if run == nil || !run.Interrupted {
		t.Errorf("the cut-off run: %+v", run)
	}
}

func TestMCPSigtermFinalizesSession(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	r.send(t, rawInitialize)
	r.readID(t, 1)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash_recorder.execute","arguments":{"command":"true"}}}`)
	r.readID(t, 2)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("exit on SIGTERM: %v", err)
		}
		r.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("cuff mcp ignored SIGTERM")
	}
	if st := endOf(p.sessionEvents(t, p.onlySession(t))); st != transcript.StatusShutdown {
		t.Errorf("session end status %q, want shutdown", st)
	}
}

// reply reads messages until the next response, skipping what the server
// sends of its own accord (notifications, requests).
func (r *rawServer) reply(t *testing.T) map[string]any {
	t.Helper()
	for {
		if m := r.read(t); m["method"] == nil {
			return m
		}
	}
}

// errorCode is the code of an error response, 0 for any other message.
func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

// drain reads stdout to its end: the server's last messages.
func (r *rawServer) drain(t *testing.T) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	for {
		line, err := r.stdout.ReadString('\n')
		if line != "" {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("stdout holds something other than the protocol: %q", line)
			}
			msgs = append(msgs, m)
		}
		if err != nil {
			return msgs
		}
	}
}

// exited waits for the server to exit and checks that it exited cleanly.
func (r *rawServer) exited(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("exit: %v\n%s", err, r.stderr)
		}
		r.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("cuff mcp kept running after the end of its input")
	}
}

const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// TestMCPMalformedLineThenEndOfInput is a client that sends a line that is
// not JSON among its requests and closes its end at once: the line gets a
// Parse error, and every request is still answered before cuff exits.
func TestMCPMalformedLineThenEndOfInput(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	r.send(t, rawInitialize)
	r.send(t, "not json")
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r.stdin.Close()
	got := map[any]map[string]any{}
	var parseErrors int
	for _, m := range r.drain(t) {
		switch {
		case m["id"] == nil && errorCode(m) == codeParseError:
			parseErrors++
		case m["id"] != nil:
			got[m["id"]] = m
		}
	}
	if parseErrors != 1 {
		t.Errorf("%d Parse error responses, want 1", parseErrors)
	}
	for _, id := range []float64{1, 2} {
		if got[id] == nil || got[id]["result"] == nil {
			t.Errorf("request %v: answer %v", id, got[id])
		}
	}
	r.exited(t)
}

func TestMCPMalformedLinesAnswered(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	r.send(t, rawInitialize)
	r.readID(t, 1)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range []struct {
		line string
		code float64 // 0: no answer
		id   any
	}{
		{"not json", codeParseError, nil},
		{"", 0, nil},
		{"  \r", 0, nil},
		{"[]", codeInvalidRequest, nil},
		{"42", codeInvalidRequest, nil},
		{`[{"jsonrpc":"2.0","id":90,"method":"ping"},{"jsonrpc":"2.0","id":91,"method":"ping"}]`, codeInvalidRequest, nil},
		{"\xff\xfe{", codeParseError, nil},
		{`{"jsonrpc":"2.0","id":92,"method":"ping"} {"jsonrpc":"2.0","id":93,"method":"ping"}`, codeParseError, nil},
		{`{"jsonrpc":"1.0","id":"x","method":"ping"}`, codeInvalidRequest, "x"},
		{`{}`, codeInvalidRequest, nil},
	} {
		r.send(t, c.line)
		// A ping after each line: the line is answered first (or not at
		// all), and the server is still there to answer the ping.
		id := float64(100 + i)
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"ping"}`, id))
		m := r.reply(t)
		if c.code != 0 {
			if errorCode(m) != c.code || m["id"] != c.id {
				t.Errorf("%q: answer %v, want error %v with id %v", c.line, m, c.code, c.id)
			}
			m = r.reply(t)
		}
		if m["id"] != id || m["result"] == nil {
			t.Errorf("%q: then the ping got %v", c.line, m)
		}
	}
	// Invalid UTF-8 inside a string is no reason to refuse a request.
	r.send(t, "{\"jsonrpc\":\"2.0\",\"id\":200,\"method\":\"tools/call\",\"params\":{\"name\":\"bash_recorder.execute\",\"arguments\":{\"command\":\"echo \xff ok\"}}}")
	if m := r.reply(t); m["id"] != float64(200) || m["result"] == nil {
		t.Errorf("a call with invalid UTF-8: %v", m)
	} else if data, _ := json.Marshal(m); !strings.Contains(string(data), "ok") {
		t.Errorf("a call with invalid UTF-8: %s", data)
	}
	r.stdin.Close()
	r.drain(t)
	r.exited(t)
}

func TestMCPHugeLines(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	r.send(t, rawInitialize)
	r.readID(t, 1)
	const tenMB = 10 << 20
	pad := func(id int, n int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":"%s"}}}`, id, strings.Repeat("x", n))
	}
	r.send(t, strings.Repeat("x", tenMB)) // 10 MB that is not JSON
	if m := r.reply(t); errorCode(m) != codeParseError || m["id"] != nil {
		t.Errorf("10 MB of garbage: %v", m)
	}
	r.send(t, pad(2, tenMB)) // a 10 MB request is a request
	if m := r.reply(t); m["id"] != float64(2) || m["result"] == nil {
		t.Errorf("a 10 MB request: %v", m)
	}
	r.send(t, pad(3, 17<<20)) // longer than any message may be
	if m := r.reply(t); errorCode(m) != codeInvalidRequest || m["id"] != nil {
		t.Errorf("a 17 MB request: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if m := r.reply(t); m["id"] != float64(4) || m["result"] == nil {
		t.Errorf("the ping after them: %v", m)
	}
	r.stdin.Close()
	r.drain(t)
	r.exited(t)
}

// TestMCPEndOfInputMidLine: the input ends in the middle of a line while a
// command runs. The command's process group is ended, its call answered,
// the cut-off line answered with a Parse error, and the session finalized.
func TestMCPEndOfInputMidLine(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	pgid := r.startSleeping(t)
	if _, err := r.stdin.WriteString(`{"jsonrpc":"2.0","id":3,"method":"pi`); err != nil {
		t.Fatal(err)
	}
	r.stdin.Close()
	var answer map[string]any
	var parseErrors int
	for _, m := range r.drain(t) {
		switch {
		case m["id"] == float64(2):
			answer = m
		case m["id"] == nil && errorCode(m) == codeParseError:
			parseErrors++
		}
	}
	if data, _ := json.Marshal(answer); answer == nil || !strings.Contains(string(data), "interrupted") {
		t.Errorf("the running call's answer: %s", data)
	}
	if parseErrors != 1 {
		t.Errorf("%d Parse error responses to the cut-off line, want 1", parseErrors)
	}
	r.exited(t)
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		t.Fatalf("the command's process group %d is still there (%v)", pgid, err)
	}
	if st := endOf(p.sessionEvents(t, p.onlySession(t))); st != transcript.StatusShutdown {
		t.Errorf("session end status %q, want shutdown", st)
	}
}

// BenchmarkMCPExecute measures one bash_recorder.execute call of `true`
// against a running server: the per-call cost an agent pays.
func BenchmarkMCPExecute(b *testing.B) {
	base := b.TempDir()
	p := &mcpProject{root: filepath.Join(base, "proj"), state: filepath.Join(base, "state"), home: filepath.Join(base, "home")}
	p.dir = filepath.Join(p.root, ".cuff")
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		b.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: p.command()}, nil)
	if err != nil {
		b.Skipf("cuff mcp: %v", err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "bash_recorder.execute", Arguments: map[string]any{"command": "true"}}
	for b.Loop() {
		if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
}

// BenchmarkExecProcess measures `cuff exec true`, a process per command, for
// comparison with BenchmarkMCPExecute.
func BenchmarkExecProcess(b *testing.B) {
	base := b.TempDir()
	p := &mcpProject{root: filepath.Join(base, "proj"), state: filepath.Join(base, "state"), home: filepath.Join(base, "home")}
	p.dir = filepath.Join(p.root, ".cuff")
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cmd := exec.Command(cuffBin, "exec", "true")
		cmd.Dir = p.root
		cmd.Env = p.command().Env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("cuff exec: %v %s", err, out)
		}
	}
}
