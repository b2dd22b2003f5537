package agenttest

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

func TestParseMessagesCountsRepliesAndFindsThePrompt(t *testing.T) {
	body := `{"stream":true,"tools":[{"name":"Bash"}],"messages":[
	 {"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"count the files"}]},
	 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"4"}],"is_error":true}]},
	 {"role":"system","content":"mid-conversation"}]}`
	first, turn, results, tools, stream, err := parseMessages([]byte(body))
	if err != nil || first != "count the files" || turn != 1 || !stream || len(tools) != 1 {
		t.Fatalf("%q %d %v %v %v", first, turn, tools, stream, err)
	}
	if len(results) != 1 || results[0] != (ToolResult{ID: "t1", Output: "4", IsError: true}) {
		t.Errorf("results %+v", results)
	}
}

func TestParseResponsesCountsReplies(t *testing.T) {
	body := `{"input":[
	 {"type":"message","role":"developer","content":[{"type":"input_text","text":"be nice"}]},
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]},
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"run it"}]},
	 {"type":"reasoning","summary":[]},
	 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]},
	 {"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},
	 {"type":"function_call_output","call_id":"c1","output":"done"},
	 {"type":"function_call","call_id":"c2","name":"exec_command","arguments":"{}"},
	 {"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"again"}]}]}`
	first, turn, results, _, err := parseResponses([]byte(body))
	if err != nil || first != "run it" || turn != 2 {
		t.Fatalf("%q %d %v", first, turn, err)
	}
	if len(results) != 2 || results[1].Output != "again" {
		t.Errorf("results %+v", results)
	}
}

func FuzzParseRequests(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"input":[{"type":"message","role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","content":7}]}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, turn, _, _, _, err := parseMessages(data)
		if err == nil && turn < 0 {
			t.Fatal("negative turn")
		}
		_, turn, _, _, err = parseResponses(data)
		if err == nil && turn < 0 {
			t.Fatal("negative turn")
		}
	})
}

// TestAnthropicMockStreams: a scripted reply comes back as the event
// sequence of the Messages API, and an unscripted request is an error
// (reported when the test ends: here, checked on a throwaway mock).
func TestAnthropicMockStreams(t *testing.T) {
	m := NewAnthropic(t, Say("hello", Turn(Text("Hi."), Bash("ls").WithID("toolu_x"))))
	resp, err := http.Post(m.URL()+"/v1/messages?beta=true", "application/json",
		strings.NewReader(`{"stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hello"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, name)
		}
	}
	want := "message_start content_block_start content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
	if reqs := m.Requests(); len(reqs) != 1 || reqs[0].Conversation != 0 || reqs[0].Turn != 0 {
		t.Errorf("requests %+v", reqs)
	}
}

func TestStoryNamesAgentsAndNests(t *testing.T) {
	evs := []Event{
		{"type": "chat_turn", "role": "user", "text": "go"},
		{"type": "delegation", "phase": "start", "call_id": "d1", "agent_id": "main", "agent_type": "gp", "task": "count"},
		{"type": "bash_start", "agent_id": "a9", "parent_call_id": "d1", "command": "ls", "verdict": map[string]any{"decision": "allow"}},
		{"type": "bash_run", "agent_id": "a9", "parent_call_id": "d1", "command": "ls", "exit_code": 2.0},
		{"type": "bash_run", "agent_id": "main", "command": "rm", "error": map[string]any{"code": "not_run"}},
		{"type": "delegation", "phase": "end", "call_id": "d1", "agent_id": "main", "success": false},
	}
	got := strings.Join(Story(evs), "\n")
	want := "user: go\nmain: delegate gp: count\n  sub1: $ ls [allow]\n  sub1: $ ls → exit 2\nmain: $ rm → not_run\nmain: delegation ✗"
	if got != want {
		t.Errorf("story:\n%s\nwant:\n%s", got, want)
	}
}
