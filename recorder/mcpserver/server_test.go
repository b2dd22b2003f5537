package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func TestListTools(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	got := toolNames(t, ts.client)
	// script_list_scripts is offered by default (scripts.expose_list_scripts).
	want := []string{"bash_recorder.execute", "bash_recorder.health", "bash_recorder.list_recent", "bash_recorder.session_info", "script_list_scripts"}
	if !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	res, err := ts.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != "bash_recorder.execute" {
			continue
		}
		schema := tl.InputSchema.(map[string]any)
		props := schema["properties"].(map[string]any)
		for _, k := range []string{"command", "timeout", "working_directory", "description"} {
			if props[k] == nil {
				t.Errorf("execute schema lacks %q: %v", k, props)
			}
		}
		if req := schema["required"].([]any); len(req) != 1 || req[0] != "command" {
			t.Errorf("required = %v", req)
		}
	}
}

func TestUnderscoreSeparator(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, func(o *Options) { o.ToolSeparator = SeparatorUnderscore }, nil, "")
	got := toolNames(t, ts.client)
	for _, n := range got {
		if strings.Contains(n, ".") {
			t.Errorf("tool %q has a dot with separator _", n)
		}
	}
	if !slices.Contains(got, "bash_recorder_execute") {
		t.Errorf("tools = %v", got)
	}
	res := ts.call(t, "bash_recorder_execute", map[string]any{"command": "echo hi"}, nil)
	if res.IsError || !strings.Contains(text(res), `"stdout":"hi\n"`) {
		t.Errorf("execute: %s", text(res))
	}
	if _, err := New(Options{Open: testOpen, Command: testCommand, ToolSeparator: "/"}); err == nil {
		t.Error("separator / accepted")
	}
}

func TestExecuteRecordsWithCorrelation(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	meta := mcp.Meta{"conversation_id": "conv-1", "agent_id": "sub-7", "tool_call_id": "toolu_01"}
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo out; echo err >&2", "description": "say hi"}, meta)
	if res.IsError {
		t.Fatalf("execute failed: %s", text(res))
	}
	var out ExecuteResult
	decode(t, res, &out)
	if out.Stdout != "out\n" || out.Stderr != "err\n" || out.ExitCode == nil || *out.ExitCode != 0 || out.TimedOut {
		t.Errorf("result = %+v", out)
	}
	if out.RecordingID == nil || out.SessionID == nil || out.WorkingDirectory == "" {
		t.Fatalf("not recorded: %+v", out)
	}
	evs := events(t, p.dir)[*out.SessionID]
	runs := ofType(evs, transcript.TypeBashRun)
	if len(runs) != 1 || runs[0].ID != *out.RecordingID {
		t.Fatalf("runs = %v", runs)
	}
	r := runs[0]
	if r.ConversationID != "conv-1" || r.AgentID != "sub-7" || r.CallID != "toolu_01" {
		t.Errorf("correlation = %+v", r.Envelope)
	}
	if b := r.Body.(*transcript.BashRun); b.Description != "say hi" || b.Command != "echo out; echo err >&2" {
		t.Errorf("run = %+v", b)
	}
	start := evs[0].Body.(*transcript.SessionStart)
	if start.Source != transcript.SourceMCP || start.Agent != "test-client" {
		t.Errorf("session start = %+v", start)
	}
	// session_info names the same session.
	info := ts.call(t, "bash_recorder.session_info", nil, nil)
	var si SessionInfo
	decode(t, info, &si)
	if si.SessionID == nil || *si.SessionID != *out.SessionID || si.Commands != 1 || si.CommandsSucceeded != 1 {
		t.Errorf("session_info = %+v", si)
	}
	// list_recent lists it.
	lr := ts.call(t, "bash_recorder.list_recent", map[string]any{"limit": 5, "session_id": "current"}, nil)
	var rr RecentResult
	decode(t, lr, &rr)
	if len(rr.Recordings) != 1 || rr.Recordings[0].RecordingID != *out.RecordingID {
		t.Errorf("list_recent = %+v", rr)
	}
	// Shutting down finalizes the session.
	ts.stop(t)
	if st := endStatus(events(t, p.dir)[*out.SessionID]); st != transcript.StatusShutdown {
		t.Errorf("end status = %q", st)
	}
}

func TestExecuteFailures(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "exit 3"}, nil)
	var out ExecuteResult
	decode(t, res, &out)
	if !res.IsError || out.ExitCode == nil || *out.ExitCode != 3 || !strings.Contains(text(res), "exited with code 3") {
		t.Errorf("exit 3: error=%v %+v %s", res.IsError, out, text(res))
	}
	res = ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo partial; sleep 30", "timeout": 3}, nil) // 3 s: the echo comes first even under load
	out = ExecuteResult{}
	decode(t, res, &out)
	if !res.IsError || !out.TimedOut || out.Stdout != "partial\n" || out.ExitCode != nil {
		t.Errorf("timeout: %+v", out)
	}
	res = ts.call(t, "bash_recorder.execute", map[string]any{"command": "pwd", "working_directory": "../.."}, nil)
	out = ExecuteResult{}
	decode(t, res, &out)
	if !res.IsError || out.Error == nil || out.Error.Code != "CUFF-EXE-005" {
		t.Errorf("outside the project: %+v %s", out, text(res))
	}
}

func TestMalformedArguments(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	for _, c := range []struct {
		args any
		want string
	}{
		{nil, `"command" is required`},
		{map[string]any{"command": 42}, `"command" must be a string, got the number 42`},
		{map[string]any{"command": "  "}, `"command" is empty`},
		{map[string]any{"command": "ls", "timeout": "soon"}, `"timeout" must be a whole number of seconds from 1 to 600`},
		{map[string]any{"command": "ls", "timeout": 1.5}, `"timeout" must be a whole number`},
		{map[string]any{"command": "ls", "timeout": 9999}, `from 1 to 600, got 9999`},
		{map[string]any{"command": "ls", "cwd": "/"}, `unknown argument "cwd"`},
		{map[string]any{"command": "ls", "working_directory": []string{"a"}}, `"working_directory" must be a string, got an array`},
	} {
		res := ts.call(t, "bash_recorder.execute", c.args, nil)
		if !res.IsError || !strings.Contains(text(res), c.want) || !strings.Contains(text(res), "bash_recorder.execute") {
			t.Errorf("%v: error=%v %q, want %q", c.args, res.IsError, text(res), c.want)
		}
	}
	res := ts.call(t, "bash_recorder.list_recent", map[string]any{"limit": 0}, nil)
	if !res.IsError || !strings.Contains(text(res), `"limit" must be a whole number of recordings from 1 to 100`) {
		t.Errorf("list_recent limit 0: %s", text(res))
	}
	// The server still works.
	res = ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo still here"}, nil)
	if res.IsError {
		t.Errorf("after bad calls: %s", text(res))
	}
	// An unknown tool is a protocol error, not a crash.
	if _, err := ts.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash_recorder.nope"}); err == nil {
		t.Error("unknown tool accepted")
	}
}

func TestHugeOutputTruncated(t *testing.T) {
	p := newProject(t, "recording:\n  max_output_size: 4096\n")
	ts := serve(t, p, nil, nil, "")
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo END"}, nil)
	var out ExecuteResult
	decode(t, res, &out)
	if res.IsError || !out.OutputTruncated || out.OmittedBytes < 2_990_000 || !strings.HasSuffix(out.Stdout, "END\n") || len(out.Stdout) > 8192 {
		t.Errorf("huge output: truncated=%v omitted=%d len=%d", out.OutputTruncated, out.OmittedBytes, len(out.Stdout))
	}
}

func TestHealth(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	ts.call(t, "bash_recorder.execute", map[string]any{"command": "true"}, nil)
	res := ts.call(t, "bash_recorder.health", nil, nil)
	var h struct {
		Healthy          bool    `json:"healthy"`
		RecordingEnabled bool    `json:"recording_enabled"`
		Writable         bool    `json:"directory_writable"`
		Current          *string `json:"current_session"`
		Entries          int64   `json:"entries_recorded"`
	}
	decode(t, res, &h)
	if !h.Writable || !h.RecordingEnabled || h.Current == nil || h.Entries < 3 {
		t.Errorf("health = %+v", h)
	}
	rr, err := ts.client.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: HealthURI})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, `"current_session":"`+*h.Current+`"`) {
		t.Errorf("health resource: %v %+v", err, rr)
	}
}

// TestConnectionsKeepTheirOwnSessions checks that two agents connected to
// two servers in one project, neither naming a conversation, are recorded
// in two sessions, and one leaving does not end the other's.
func TestConnectionsKeepTheirOwnSessions(t *testing.T) {
	p := newProject(t, "")
	a, b := serve(t, p, nil, nil, ""), serve(t, p, nil, nil, "")
	outA, _ := runOnce(t, a, "echo a")
	outB, _ := runOnce(t, b, "echo b")
	if outA.SessionID == nil || outB.SessionID == nil || *outA.SessionID == *outB.SessionID {
		t.Fatalf("sessions %v %v", outA.SessionID, outB.SessionID)
	}
	a.stop(t)
	evs := events(t, p.dir)
	if endStatus(evs[*outA.SessionID]) != transcript.StatusShutdown || endStatus(evs[*outB.SessionID]) != "" {
		t.Errorf("after a left: a %q, b %q", endStatus(evs[*outA.SessionID]), endStatus(evs[*outB.SessionID]))
	}
	if out, _ := runOnce(t, b, "echo b2"); out.SessionID == nil || *out.SessionID != *outB.SessionID {
		t.Errorf("b moved to another session: %v", out.SessionID)
	}
}
