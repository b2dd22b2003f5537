package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// argError is a tool call whose arguments cannot be used. Its message names
// the tool, the argument and what is expected.
type argError struct {
	tool, msg string
}

func (e *argError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s", e.tool, e.msg)
}

// args reads a call's arguments: a JSON object with only known keys.
type args struct {
	tool   string
	fields map[string]json.RawMessage
}

// parseArgs checks that raw is a JSON object (or absent) whose keys are all
// in known.
func parseArgs(tool string, raw json.RawMessage, known ...string) (*args, error) {
	a := &args{tool: tool, fields: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return a, nil
	}
	if raw[0] != '{' {
		return nil, &argError{tool, fmt.Sprintf("arguments must be a JSON object, got %s", kind(raw))}
	}
	if err := json.Unmarshal(raw, &a.fields); err != nil {
		return nil, &argError{tool, fmt.Sprintf("arguments are not valid JSON: %v", err)}
	}
	var unknown []string
	for k := range a.fields {
		if !contains(known, k) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, &argError{tool, fmt.Sprintf("unknown argument %s; the arguments are: %s",
			strings.Join(unknown, ", "), strings.Join(known, ", "))}
	}
	return a, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// has reports whether the argument was given (and is not null).
func (a *args) has(name string) bool {
	v, ok := a.fields[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// str reads a string argument; "" when absent.
func (a *args) str(name string) (string, error) {
	if !a.has(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(a.fields[name], &s); err != nil {
		return "", &argError{a.tool, fmt.Sprintf("%q must be a string, got %s", name, kind(a.fields[name]))}
	}
	if strings.ContainsRune(s, 0) {
		return "", &argError{a.tool, fmt.Sprintf("%q contains a NUL byte", name)}
	}
	return s, nil
}

// integer reads a whole-number argument within [lo, hi]; ok is false when absent.
func (a *args) integer(name string, lo, hi int64, unit string) (n int64, ok bool, err error) {
	if !a.has(name) {
		return 0, false, nil
	}
	var f float64
	bad := &argError{a.tool, fmt.Sprintf("%q must be a whole number of %s from %d to %d, got %s",
		name, unit, lo, hi, clip(string(a.fields[name])))}
	if err := json.Unmarshal(a.fields[name], &f); err != nil || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, false, bad
	}
	return int64(f), true, nil
}

// stringList reads an array of strings; nil when absent.
func (a *args) stringList(name string) ([]string, error) {
	if !a.has(name) {
		return nil, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(a.fields[name], &raw); err != nil {
		return nil, &argError{a.tool, fmt.Sprintf("%q must be an array of strings, got %s", name, kind(a.fields[name]))}
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, &argError{a.tool, fmt.Sprintf("%q[%d] must be a string, got %s", name, i, kind(r))}
		}
	}
	return out, nil
}

// stringMap reads an object of strings; nil when absent.
func (a *args) stringMap(name string) (map[string]string, error) {
	if !a.has(name) {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	v := bytes.TrimSpace(a.fields[name])
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &raw) != nil {
		return nil, &argError{a.tool, fmt.Sprintf("%q must be an object of strings, got %s", name, kind(v))}
	}
	out := make(map[string]string, len(raw))
	for k, r := range raw {
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return nil, &argError{a.tool, fmt.Sprintf("%q.%s must be a string, got %s", name, k, kind(r))}
		}
		out[k] = s
	}
	return out, nil
}

// boolean reads a true/false argument; false when absent.
func (a *args) boolean(name string) (bool, error) {
	if !a.has(name) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(a.fields[name], &b); err != nil {
		return false, &argError{a.tool, fmt.Sprintf("%q must be true or false, got %s", name, kind(a.fields[name]))}
	}
	return b, nil
}

// kind names the JSON type of v for error messages, with the value when short.
func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "the string " + clip(string(v))
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + clip(string(v))
}

// clip shortens a value quoted in an error message.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
