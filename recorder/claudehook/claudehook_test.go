package claudehook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`))
	f.Add([]byte(`{"hook_event_name":"PostToolUseFailure","error":"Exit code 2\nboom","tool_input":"x"}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"tool_response":{"stdout":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Parse(data)
		if err != nil {
			return
		}
		var b bashInput
		_ = json.Unmarshal(in.ToolInput, &b)
		_ = exitCodeOf(in.Error)
		_ = textOf(in.ToolResponse)
	})
}

func TestExitCodeOf(t *testing.T) {
	cases := map[string]int{"Exit code 1\nFAIL": 1, "Exit code 127": 127, "  Exit code 2  \n": 2}
	for in, want := range cases {
		if got := exitCodeOf(in); got == nil || *got != want {
			t.Errorf("exitCodeOf(%q) = %v, want %d", in, got, want)
		}
	}
	for _, in := range []string{"", "boom", "Exit code x", "exit code 1"} {
		if got := exitCodeOf(in); got != nil {
			t.Errorf("exitCodeOf(%q) = %d, want none", in, *got)
		}
	}
}

func TestUntrustedTools(t *testing.T) {
	if !untrustedTool("WebFetch") || !untrustedTool("mcp__browser__fetch_page") || untrustedTool("Read") {
		t.Error("untrusted tools")
	}
}

func TestInstallQuotesThePathAndKeepsTheUsersText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(`{"env":{"X":"a && b <c>"},"n":10000000000000001,"hooks":{}}`), 0o644)
	res, err := Install(InstallOptions{SettingsPath: path, Command: "/opt/my tools/cuff", GateTimeout: 360 * time.Second, Now: time.Now()})
	if err != nil || len(res.Added) != 8 {
		t.Fatalf("%v %+v", err, res)
	}
	data, _ := os.ReadFile(path)
	s := string(data)
	if !strings.Contains(s, `"a && b <c>"`) || !strings.Contains(s, "10000000000000001") {
		t.Errorf("the user's text changed:\n%s", s)
	}
	if !strings.Contains(s, `"'/opt/my tools/cuff' hook claude"`) {
		t.Errorf("the path is not quoted for the shell:\n%s", s)
	}
	res, err = Install(InstallOptions{SettingsPath: path, Command: "/opt/my tools/cuff", GateTimeout: 360 * time.Second, Now: time.Now()})
	if err != nil || res.Changed() {
		t.Errorf("second install changed something: %+v %v", res, err)
	}
}

func TestParallelSubAgentsNestUnderTheirOwnDelegation(t *testing.T) {
	st := &state{Delegations: []string{"task_A", "task_B"}}
	if got := st.delegationOf("agent-1"); got != "task_A" {
		t.Errorf("first sub-agent under %s", got)
	}
	if got := st.delegationOf("agent-2"); got != "task_B" {
		t.Errorf("second sub-agent under %s", got)
	}
	if got := st.delegationOf("agent-1"); got != "task_A" {
		t.Errorf("first sub-agent moved to %s", got)
	}
	st.endDelegation("task_A")
	if _, ok := st.Agents["agent-1"]; ok || len(st.Delegations) != 1 {
		t.Errorf("after the end: %+v", st)
	}
}

func TestHeadTailKeepsBothEndsOnCharacterBoundaries(t *testing.T) {
	s := strings.Repeat("é", 1000) // 2 bytes each
	out, cut := headTail(s, 101)
	if !cut || !strings.HasPrefix(out, "é") || !strings.HasSuffix(out, "é") || !strings.Contains(out, "bytes left out") {
		t.Fatalf("%q", out)
	}
	if !utf8.ValidString(out) {
		t.Error("cut inside a character")
	}
	if out, cut := headTail("short", 100); cut || out != "short" {
		t.Error("short text changed")
	}
	if _, cut := headTail(s, 0); cut {
		t.Error("0 means keep everything")
	}
}
