package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/recorder"
)

func TestParseExecute(t *testing.T) {
	for _, c := range []struct {
		in, err string
		want    executeArgs
	}{
		{in: `{"command":"ls -la"}`, want: executeArgs{command: "ls -la"}},
		{in: `{"command":"make","timeout":90,"working_directory":"src","description":"build"}`,
			want: executeArgs{command: "make", timeout: 90, dir: "src", description: "build"}},
		{in: `{"command":"ls","timeout":null}`, want: executeArgs{command: "ls"}},
		{in: `{"command":"ls","timeout":600.0}`, want: executeArgs{command: "ls", timeout: 600}},
		{in: ``, err: `"command" is required`},
		{in: `null`, err: `"command" is required`},
		{in: `[]`, err: "arguments must be a JSON object, got an array"},
		{in: `"ls"`, err: `arguments must be a JSON object, got the string "ls"`},
		{in: `{"command":`, err: "arguments are not valid JSON"},
		{in: `{"command":"a\u0000b"}`, err: "NUL byte"},
		{in: `{"command":"ls","timeout":0}`, err: `from 1 to 600, got 0`},
		{in: `{"command":"ls","timeout":-5}`, err: `got -5`},
		{in: `{"command":"ls","timeout":1e300}`, err: `"timeout" must be a whole number`},
		{in: `{"command":"ls","description":true}`, err: `"description" must be a string, got a boolean`},
		{in: `{"command":"ls","b":1,"a":2}`, err: `unknown argument "a", "b"; the arguments are: command, timeout, working_directory, description`},
	} {
		got, err := parseExecute("bash_recorder.execute", json.RawMessage(c.in), 600)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.in, err)
		case c.err == "" && *got != c.want:
			t.Errorf("%s: %+v, want %+v", c.in, *got, c.want)
		}
	}
}

func TestCorrelation(t *testing.T) {
	c := correlation(map[string]any{"conversation_id": "c1", "cuff/agent_id": "a1", "agent_id": "ignored",
		"claudecode/toolUseId": "toolu_9", "run_id": 42.0, "task_id": strings.Repeat("x", maxIDLength+1), "step_id": "a\nb"})
	if c.ConversationID != "c1" || c.AgentID != "a1" || c.ToolCallID != "toolu_9" || c.RunID != "42" || c.TaskID != "" || c.StepID != "" {
		t.Errorf("correlation = %+v", c)
	}
	if c := correlation(nil); c.ConversationID != "" {
		t.Errorf("nil meta: %+v", c)
	}
	// What Codex 0.169 sends with every tools/call.
	var codex map[string]any
	if err := json.Unmarshal([]byte(`{"callId":"call_aaa1","x-codex-turn-metadata":{"session_id":"019f-s","thread_id":"019f-t",
		"turn_id":"019f-turn","model":"m"},"threadId":"019f-t","sessionId":"019f-s","windowId":"019f-t:0","itemId":"fc_1","progressToken":1}`), &codex); err != nil {
		t.Fatal(err)
	}
	want := recorder.Correlation{ConversationID: "019f-t", ToolCallID: "call_aaa1", TaskID: "019f-turn", StepID: "fc_1"}
	if c := correlation(codex); c != want {
		t.Errorf("Codex's _meta: %+v, want %+v", c, want)
	}
}

func FuzzParseExecute(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"command":"x","timeout":5,"working_directory":"a","description":"d"}`,
		`[]`, `null`, ``, `{"command":1}`, `{"timeout":1.5}`, `{"command":"\u0000"}`, `{"command":"ls","extra":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parseExecute("t", json.RawMessage(in), 600)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid arguments for t: ") {
				t.Errorf("error without the tool's name: %v", err)
			}
			return
		}
		if strings.TrimSpace(got.command) == "" || strings.ContainsRune(got.command, 0) || got.timeout < 0 || got.timeout > 600 {
			t.Errorf("accepted %q as %+v", in, got)
		}
	})
}

func FuzzParseScript(f *testing.F) {
	for _, s := range []string{`{"args":["a"],"env":{"A":"b"},"timeout":3}`, `{}`, `{"args":"x"}`, `{"env":[]}`, `{"env":{"A":1}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r, err := parseScript("script_x", json.RawMessage(in), 600)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid arguments for script_x: ") || (utf8.ValidString(in) && !utf8.ValidString(err.Error())) {
				t.Errorf("error: %v", err)
			}
			return
		}
		if r.Script != "script_x" || r.Timeout < 0 {
			t.Errorf("accepted %q as %+v", in, r)
		}
	})
}

func FuzzCorrelation(f *testing.F) {
	f.Add(`{"conversation_id":"c","agent_id":"a","tool_call_id":"t"}`)
	f.Add(`{"cuff/run_id":1,"step_id":"\n"}`)
	f.Fuzz(func(t *testing.T, in string) {
		var m map[string]any
		if json.Unmarshal([]byte(in), &m) != nil {
			return
		}
		c := correlation(m)
		for _, v := range []string{c.AgentID, c.ConversationID, c.ToolCallID, c.RunID, c.TaskID, c.StepID} {
			if len(v) > maxIDLength || strings.ContainsAny(v, "\x00\n\r") || v != strings.TrimSpace(v) {
				t.Errorf("kept id %q", v)
			}
		}
	})
}
