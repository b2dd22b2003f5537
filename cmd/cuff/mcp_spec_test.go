package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeInvalidParams is JSON-RPC's error for a request whose params are wrong.
const codeInvalidParams = -32602

// TestMCPSigtermAnswersCallsInFlight: a call running when cuff mcp is told
// to stop is ended and answered before the server exits, as the README
// promises; the client never waits for an answer that will not come.
func TestMCPSigtermAnswersCallsInFlight(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	pgid := r.startSleeping(t)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var answer map[string]any
	for _, m := range r.drain(t) {
		if m["id"] == float64(2) {
			answer = m
		}
	}
	r.exited(t)
	if answer == nil {
		t.Fatal("the call running at SIGTERM got no answer")
	}
	data, _ := json.Marshal(answer)
	if answer["error"] == nil && !strings.Contains(string(data), `"isError":true`) {
		t.Errorf("the cut-off call was answered as a success: %s", data)
	}
	if err := syscall.Kill(-pgid, 0); err == nil {
		syscall.Kill(-pgid, syscall.SIGKILL)
		t.Errorf("the command's process group %d outlived the server", pgid)
	}
}

// TestMCPCancelledCallNotAnswered: a call the client cancels with
// notifications/cancelled gets no answer (the spec says the receiver
// should not send one); the server goes on answering other requests.
func TestMCPCancelledCallNotAnswered(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	pgid := r.startSleeping(t)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user pressed Esc"}}`)
	// The command is ended: its process group goes away.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatal("the cancelled call's command kept running")
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	r.stdin.Close()
	var ids []any
	for _, m := range r.drain(t) {
		if m["id"] != nil {
			ids = append(ids, m["id"])
		}
	}
	r.exited(t)
	if len(ids) != 1 || ids[0] != float64(3) {
		t.Errorf("answers to %v, want only the ping (3): the cancelled call 2 must not be answered", ids)
	}
}

// TestMCPErrorCodes: a request before initialize is an Invalid Request,
// an initialize with a protocolVersion that is not a string is Invalid
// params; neither is answered with code 0, which JSON-RPC does not have.
func TestMCPErrorCodes(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := r.reply(t); m["id"] != float64(1) || errorCode(m) != codeInvalidRequest {
		t.Errorf("tools/list before initialize: %v, want error %d", m, codeInvalidRequest)
	}
	for i, params := range []string{
		`{"protocolVersion":123,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}`,
		`{"capabilities":{},"clientInfo":{"name":"x","version":"1"}}`,
		`{"protocolVersion":"2025-06-18","capabilities":[],"clientInfo":{"name":"x","version":"1"}}`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":"x"}`,
		`"2025-06-18"`,
	} {
		id := float64(10 + i)
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"initialize","params":%s}`, id, params))
		if m := r.reply(t); m["id"] != id || errorCode(m) != codeInvalidParams {
			t.Errorf("initialize with %s: %v, want error %d", params, m, codeInvalidParams)
		}
	}
	// A good initialize still works after them.
	r.send(t, rawInitialize)
	if m := r.reply(t); m["id"] != float64(1) || m["result"] == nil {
		t.Errorf("initialize after the bad ones: %v", m)
	}
	r.stdin.Close()
	for _, m := range r.drain(t) {
		if m["error"] != nil && errorCode(m) == 0 {
			t.Errorf("an error with code 0: %v", m)
		}
	}
	r.exited(t)
}

// TestMCPNoNeedlessListChanged: listing the tools settles the project and
// may add its script tools, but the list the client just got already holds
// them: no notifications/tools/list_changed follows.
func TestMCPNoNeedlessListChanged(t *testing.T) {
	p := newMCPProject(t, "", "")
	gitInit(t, p.root)
	r := p.startRaw(t)
	// As Codex 0.169 starts a server: its three messages at once.
	r.send(t, rawInitialize)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":0}}}`)
	var msgs []map[string]any
	readTo := func(id float64) map[string]any {
		for {
			m := r.read(t)
			msgs = append(msgs, m)
			if m["id"] == id {
				return m
			}
		}
	}
	list := readTo(2)
	// A call after the list: the server has settled everything by its answer.
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash_recorder.execute","arguments":{"command":"true"}}}`)
	readTo(3)
	r.stdin.Close()
	msgs = append(msgs, r.drain(t)...)
	r.exited(t)
	for _, m := range msgs {
		if m["method"] == "notifications/tools/list_changed" {
			t.Errorf("a needless notifications/tools/list_changed after the client listed the tools")
		}
	}
	// Every tool's input schema refuses arguments it does not know, as
	// the server does.
	res, _ := list["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	if len(tools) == 0 {
		t.Fatalf("tools/list: %v", list)
	}
	for _, tool := range tools {
		tm, _ := tool.(map[string]any)
		schema, _ := tm["inputSchema"].(map[string]any)
		if schema["additionalProperties"] != false {
			t.Errorf("tool %v: inputSchema lacks additionalProperties: false: %v", tm["name"], schema)
		}
	}
}

// TestMCPCreatesStoreIgnored: cuff mcp that creates the project's .cuff
// for its first recording adds it to .gitignore, as cuff init does, so
// that recordings are not committed by accident.
func TestMCPCreatesStoreIgnored(t *testing.T) {
	p := newMCPProject(t, "", "")
	if err := os.RemoveAll(p.dir); err != nil {
		t.Fatal(err)
	}
	gitInit(t, p.root)
	if err := os.WriteFile(filepath.Join(p.root, ".gitignore"), []byte("bin/"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := p.connect(t)
	if res, out := s.execute(t, map[string]any{"command": "true"}); res.IsError || out.RecordingID == nil {
		t.Fatalf("execute: %+v %+v", res, out)
	}
	data, err := os.ReadFile(filepath.Join(p.root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); !strings.HasPrefix(got, "bin/\n") || !strings.Contains(got, "\n.cuff/\n") {
		t.Errorf(".gitignore after cuff mcp created .cuff:\n%s", got)
	}
	if out, err := exec.Command("git", "-C", p.root, "check-ignore", "-q", ".cuff/recordings").CombinedOutput(); err != nil {
		t.Errorf("git does not ignore .cuff/recordings: %v %s", err, out)
	}
}

// gitInit makes dir a git repository.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
}

// TestMCPFindsTheTUIWithoutStateVariables: Codex starts MCP servers with a
// short environment (HOME, PATH, …; no CUFF_STATE_DIR, no XDG_STATE_HOME).
// A TUI that watches a state directory its environment chose announces it
// in the per-user default one, and cuff mcp started without the variables
// files its approval requests there: the person at the TUI answers them.
func TestMCPFindsTheTUIWithoutStateVariables(t *testing.T) {
	p := newMCPProject(t, "", "rules:\n  - match: \"echo gated *\"\n    action: ask\n    reason: \"the test gates it\"\n")
	getenv := func(k string) string {
		if k == "HOME" {
			return p.home
		}
		return ""
	}
	release, err := approval.Announce(getenv, p.state) // as the TUI does, from this (live) process
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	decide(t, p.state, approval.Approve("once", approval.ByTUI))
	cmd := exec.Command(cuffBin, "mcp")
	cmd.Dir = p.root
	cmd.Env = []string{"HOME=" + p.home, "PATH=" + os.Getenv("PATH"), "TZ=UTC"} // what Codex passes
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "codex-like", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer cs.Close()
	s := &mcpSession{ClientSession: cs, stderr: stderr}
	res, out := s.execute(t, map[string]any{"command": "echo gated hello"})
	if res.IsError || out.Stdout != "gated hello\n" {
		t.Fatalf("the request did not reach the TUI's state directory: %s\n%s", resultText(res), stderr)
	}
	release()
	if d, err := approval.StateDir(getenv); err != nil || d == p.state {
		t.Errorf("after the TUI withdrew: state dir %q %v", d, err)
	}
}
