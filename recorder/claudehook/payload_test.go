package claudehook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestReadInputWithinLimit(t *testing.T) {
	in := `{"session_id":"s","tool_response":{"stdout":"hello"}}`
	data, over, err := ReadInput(strings.NewReader(in), 1<<10)
	if err != nil || over != nil || string(data) != in {
		t.Errorf("%q %+v %v", data, over, err)
	}
}

// TestReadInputOverLimitKeepsWhatFits: a payload over the limit keeps its
// small fields whole and the head and the tail of its big string (where an
// output says how it ended), each cut at a word boundary (no part of a
// token is kept), the note between them.
func TestReadInputOverLimitKeepsWhatFits(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2", 9)
	big := strings.Repeat("line of output ", 200) + token + strings.Repeat(" tail", 1000) + " exit status 2: FAILED"
	payload, _ := json.Marshal(map[string]any{"session_id": "sess-1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_use_id": "toolu_9", "tool_response": map[string]any{"stdout": big, "exit_code": 0}})
	limit := int64(len(payload) / 2)
	data, over, err := ReadInput(bytes.NewReader(payload), limit)
	if err != nil {
		t.Fatal(err)
	}
	if over == nil || over.Bytes != int64(len(payload)) || over.Strings != 1 || int64(len(data)) > limit {
		t.Fatalf("over %+v, %d bytes for a limit of %d", over, len(data), limit)
	}
	in, err := Parse(data)
	if err != nil {
		t.Fatalf("cut payload does not parse: %v", err)
	}
	var resp bashResponse
	json.Unmarshal(in.ToolResponse, &resp)
	head, tail, cut := strings.Cut(resp.Stdout, cutNote)
	if in.SessionID != "sess-1" || in.ToolUseID != "toolu_9" || resp.ExitCode == nil || !cut {
		t.Fatalf("parsed %+v / %.80q", in, resp.Stdout)
	}
	if !strings.HasPrefix(big, head) || strings.HasSuffix(head, "outpu") || head == "" {
		t.Errorf("head: %d bytes ending %q", len(head), head[max(0, len(head)-20):])
	}
	if !strings.HasSuffix(big, tail) || !strings.HasSuffix(tail, "exit status 2: FAILED") || strings.HasPrefix(tail, "ail") {
		t.Errorf("tail: %d bytes starting %q", len(tail), tail[:min(20, len(tail))])
	}
	for i := 0; i+10 <= len(token); i++ {
		if strings.Contains(resp.Stdout, token[i:i+10]) {
			t.Fatalf("a piece of the token is kept: %q", token[i:i+10])
		}
	}
}

// FuzzReadInput: whatever the payload and the limit, what ReadInput returns
// is valid JSON within the limit, the payload itself when it fits, and
// otherwise the same value with some strings cut (each a head of the
// original, the note, and a tail of it).
func FuzzReadInput(f *testing.F) {
	f.Add([]byte(`{"a":"0123456789abcdef","b":[1,true,null,"x\u00e9\n"]}`), uint16(20))
	f.Add([]byte(`["\ud83d\ude00\ud83d\ude00\ud83d\ude00", -1.5e3]`), uint16(12))
	f.Add([]byte(`{"k":"ghp_aaaaaaaaaaaaaaaaaaaa bbb"}`), uint16(30))
	f.Fuzz(func(t *testing.T, payload []byte, limit uint16) {
		data, over, err := ReadInput(bytes.NewReader(payload), int64(limit))
		if len(payload) <= int(limit) {
			if err != nil || over != nil || !bytes.Equal(data, payload) {
				t.Fatalf("within the limit: %q %+v %v", data, over, err)
			}
			return
		}
		if err != nil || !json.Valid(payload) {
			return // not JSON (the shrinker checks structure, not every literal), or too big even cut
		}
		if len(data) > int(limit) || !json.Valid(data) {
			t.Fatalf("%d bytes for a limit of %d, valid %v: %q", len(data), limit, json.Valid(data), data)
		}
		var a, b any
		json.Unmarshal(payload, &a)
		json.Unmarshal(data, &b)
		if !sameButCut(a, b) {
			t.Fatalf("the value changed beyond cut strings:\n%q\n%q", payload, data)
		}
	})
}

// sameButCut reports whether b is a with some strings cut and marked.
func sameButCut(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		m, ok := b.(map[string]any)
		if !ok || len(m) != len(a) {
			return false
		}
		for k, v := range a {
			if !sameButCut(v, m[k]) {
				return false
			}
		}
		return true
	case []any:
		l, ok := b.([]any)
		if !ok || len(l) != len(a) {
			return false
		}
		for i := range a {
			if !sameButCut(a[i], l[i]) {
				return false
			}
		}
		return true
	case string:
		s, ok := b.(string)
		if !ok {
			return false
		}
		if s == a {
			return true
		}
		head, tail, cut := strings.Cut(s, cutNote)
		valid := strings.ToValidUTF8(a, "\uFFFD")
		return cut && strings.HasPrefix(valid, head) && strings.HasSuffix(valid, tail)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
