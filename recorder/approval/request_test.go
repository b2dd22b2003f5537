package approval

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestNewIDIsValidAndFresh(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !ValidID(id) {
			t.Fatalf("NewID() = %q is not valid", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "abc", strings.Repeat("a", 31), strings.Repeat("a", 33),
		strings.Repeat("A", 32), strings.Repeat("g", 32), "../" + strings.Repeat("a", 29), strings.Repeat("a", 30) + "\x00a"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

// validRequest is a request file that ParseRequest accepts.
func validRequest() map[string]any {
	now := time.Date(2026, 1, 18, 14, 30, 52, 0, time.UTC)
	return map[string]any{
		"v": 1, "request_id": strings.Repeat("ab", 16), "call_id": "toolu_01",
		"session": map[string]any{"dir": "/p/.cuff", "recordings": "/p/.cuff/recordings", "id": "20260118_143052_a7b3c9d2-e4f5"},
		"tool":    "Bash", "command": "curl https://example.com",
		"verdict":    map[string]any{"decision": "ask", "tier": "risky", "reasons": []string{"network"}},
		"created_at": now, "expires_at": now.Add(5 * time.Minute),
	}
}

func TestParseRequestRejectsWhatIsNotARequest(t *testing.T) {
	data, _ := json.Marshal(validRequest())
	r, err := ParseRequest(data)
	if err != nil {
		t.Fatalf("valid request: %v", err)
	}
	if r.Command != "curl https://example.com" || r.Session.ID != "20260118_143052_a7b3c9d2-e4f5" {
		t.Errorf("parsed %+v", r)
	}
	cases := []struct {
		name, want string
		edit       func(m map[string]any)
	}{
		{"version", "version 2", func(m map[string]any) { m["v"] = 2 }},
		{"short id", "not 32 hex digits", func(m map[string]any) { m["request_id"] = "abc" }},
		{"path id", "not 32 hex digits", func(m map[string]any) { m["request_id"] = "../../../../etc/passwd/aaaaaaaaaa" }},
		{"no call id", "no call_id", func(m map[string]any) { delete(m, "call_id") }},
		{"nothing to approve", "neither a command nor a tool", func(m map[string]any) { delete(m, "tool"); delete(m, "command") }},
		{"no expiry", "lacks created_at or expires_at", func(m map[string]any) { delete(m, "expires_at") }},
		{"backwards", "expires before", func(m map[string]any) { m["expires_at"] = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"bad session", "not a native session id", func(m map[string]any) {
			m["session"] = map[string]any{"recordings": "/r", "id": "../../x"}
		}},
		{"relative dir", "not absolute", func(m map[string]any) {
			m["session"] = map[string]any{"recordings": "rel", "id": "20260118_143052_a7b3c9d2-e4f5"}
		}},
		{"session without recordings", "no recordings directory", func(m map[string]any) {
			m["session"] = map[string]any{"id": "20260118_143052_a7b3c9d2-e4f5"}
		}},
		{"bad type", "not valid JSON", func(m map[string]any) { m["taint"] = 5 }},
	}
	for _, c := range cases {
		m := validRequest()
		c.edit(m)
		data, _ := json.Marshal(m)
		_, err := ParseRequest(data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	for _, bad := range []string{"", "null", "[]", "{", `{"v":1}{"v":1}`, "\x00"} {
		if _, err := ParseRequest([]byte(bad)); err == nil {
			t.Errorf("ParseRequest(%q) accepted", bad)
		}
	}
}

func TestParseDecision(t *testing.T) {
	id := strings.Repeat("0f", 16)
	good := []string{
		decisionJSON(id, "approve", "tui"),
		decisionJSON(id, "deny", "cli"),
		decisionJSON(id, "timeout", "timeout"),
	}
	for _, g := range good {
		if _, err := ParseDecision([]byte(g)); err != nil {
			t.Errorf("%s: %v", g, err)
		}
	}
	bad := map[string]string{
		"unknown decision": decisionJSON(id, "maybe", "tui"),
		"unknown decider":  decisionJSON(id, "deny", "someone"),
		"forged id":        decisionJSON("ABC", "approve", "tui"),
		"approve no scope": `{"v":1,"request_id":"` + id + `","decision":"approve","by":"tui","decided_at":"2026-01-01T00:00:00Z"}`,
		"no time":          `{"v":1,"request_id":"` + id + `","decision":"deny","by":"tui"}`,
		"trailing":         decisionJSON(id, "deny", "tui") + "x",
	}
	for name, b := range bad {
		if _, err := ParseDecision([]byte(b)); err == nil {
			t.Errorf("%s: accepted %s", name, b)
		}
	}
}

func TestRequestEventsPairByCallID(t *testing.T) {
	data, _ := json.Marshal(validRequest())
	r, err := ParseRequest(data)
	if err != nil {
		t.Fatal(err)
	}
	r.AgentID, r.ParentCallID = "sub_1", "toolu_task"
	req := r.Event()
	d := &Decision{V: 1, RequestID: r.ID, Decision: "deny", By: ByCLI, Reason: "no", DecidedAt: r.CreatedAt.Add(time.Second)}
	dec := r.DecisionEvent(d)
	if req.CallID != "toolu_01" || dec.CallID != "toolu_01" || dec.AgentID != "sub_1" || dec.ParentCallID != "toolu_task" {
		t.Errorf("envelopes: %+v / %+v", req.Envelope, dec.Envelope)
	}
	line, err := json.Marshal(dec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"type":"approval_decision"`, `"decision":"deny"`, `"by":"cli"`, `"reason":"no"`} {
		if !strings.Contains(string(line), want) {
			t.Errorf("decision event %s lacks %s", line, want)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	data, _ := json.Marshal(validRequest())
	f.Add(data)
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`{"v":1,"request_id":"` + strings.Repeat("a", 32) + `","call_id":"c","command":"x","created_at":"2026-01-01T00:00:00Z","expires_at":"2025-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"session":{"id":"20260118_143052_a7b3c9d2-e4f5","recordings":"/r"}}`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRequest(data)
		if err != nil {
			if r != nil {
				t.Fatal("request with an error")
			}
			return
		}
		// Whatever is accepted is safe to use as a path and to record.
		if !ValidID(r.ID) || r.CallID == "" || r.ExpiresAt.Before(r.CreatedAt) {
			t.Fatalf("accepted a bad request: %+v", r)
		}
		if r.Session.ID != "" && (strings.ContainsAny(r.Session.ID, "/\\.") || r.Session.Recordings == "") {
			t.Fatalf("accepted a bad session: %+v", r.Session)
		}
		out, err := encode(r)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseRequest(out)
		if err != nil || again.ID != r.ID || again.Command != r.Command {
			t.Fatalf("round trip: %v %+v", err, again)
		}
		_ = r.Event()
	})
}

func FuzzParseDecision(f *testing.F) {
	id := strings.Repeat("0f", 16)
	f.Add([]byte(decisionJSON(id, "approve", "tui")))
	f.Add([]byte(decisionJSON(id, "timeout", "timeout")))
	f.Add([]byte(`{"v":1,"request_id":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDecision(data)
		if err != nil {
			return
		}
		if !ValidID(d.RequestID) || d.DecidedAt.IsZero() {
			t.Fatalf("accepted a bad decision: %+v", d)
		}
		switch d.Decision {
		case "approve", "deny", "timeout":
		default:
			t.Fatalf("accepted decision %q", d.Decision)
		}
	})
}
