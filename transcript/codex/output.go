package codex

import (
	"encoding/json"
	"strconv"
	"strings"
)

// output is what a tool call's output says beyond its text.
type output struct {
	body       string
	exitCode   *int
	durationMS int64
	running    bool   // the command goes on in a unified-exec session
	sessionID  string // that session's id
	failed     bool   // the output was marked success: false
}

// parseOutput reads a function_call_output or custom_tool_call_output:
// a string (plain text with a header, or JSON with exit code metadata), an
// array of content items, or {content, success}.
func parseOutput(v any) output {
	var o output
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case []any:
		text = anyItemsText(x)
	case map[string]any:
		content, hasContent := x["content"]
		success, hasSuccess := x["success"].(bool)
		if !hasContent && !hasSuccess {
			text = valueText(x)
			break
		}
		o.failed = hasSuccess && !success
		if list, ok := content.([]any); ok {
			text = anyItemsText(list)
		} else {
			text = valueText(content)
		}
	default:
		text = valueText(x)
	}
	if metadataOutput(text, &o) {
		return o
	}
	parseHeader(text, &o)
	o.body = itemsText(o.body)
	return o
}

// anyItemsText joins the text of content items decoded as generic values.
func anyItemsText(list []any) string {
	it := make(items, 0, len(list))
	for _, e := range list {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		text, _ := m["text"].(string)
		it = append(it, item{Type: typ, Text: text})
	}
	return it.text()
}

// metadataOutput reads the JSON string older Codex versions wrote:
// {"output": "...", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}.
func metadataOutput(text string, o *output) bool {
	if !strings.HasPrefix(strings.TrimSpace(text), `{"output"`) {
		return false
	}
	var j struct {
		Output   *string `json:"output"`
		Metadata *struct {
			ExitCode        *int    `json:"exit_code"`
			DurationSeconds float64 `json:"duration_seconds"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(text), &j) != nil || j.Output == nil || j.Metadata == nil {
		return false
	}
	o.body = *j.Output
	o.exitCode = j.Metadata.ExitCode
	if d := j.Metadata.DurationSeconds; d > 0 {
		o.durationMS = int64(d * msPerSecond)
	}
	return true
}

// Header lines newer Codex versions put before a command's output.
const (
	headerExited   = "Process exited with code "
	headerExitCode = "Exit code: "
	headerRunning  = "Process running with session ID "
	headerWallTime = "Wall time: "
	headerOutput   = "Output:"
)

// ignoredHeaders are header lines that carry nothing cuff records.
var ignoredHeaders = []string{"Chunk ID:", "Original token count:", "Total output lines:"}

// parseHeader reads the header lines of a plain-text output and takes the
// text after "Output:" as the body; text without a header is the body.
func parseHeader(text string, o *output) {
	rest := text
	header := false
	for rest != "" {
		ln, after, _ := strings.Cut(rest, "\n")
		ln = strings.TrimRight(ln, "\r")
		switch {
		case strings.HasPrefix(ln, headerExited):
			o.exitCode = atoiPtr(ln[len(headerExited):])
		case strings.HasPrefix(ln, headerExitCode):
			o.exitCode = atoiPtr(ln[len(headerExitCode):])
		case strings.HasPrefix(ln, headerRunning):
			o.running = true
			o.sessionID = strings.TrimSpace(ln[len(headerRunning):])
		case strings.HasPrefix(ln, headerWallTime):
			secs := strings.TrimSuffix(strings.TrimSpace(ln[len(headerWallTime):]), " seconds")
			if f, err := strconv.ParseFloat(secs, 64); err == nil && f >= 0 {
				o.durationMS = int64(f * msPerSecond)
			}
		case ln == headerOutput:
			o.body = after
			return
		case hasAnyPrefix(ln, ignoredHeaders):
		default:
			if header {
				o.body = rest
			} else {
				o.body = text
			}
			return
		}
		header = true
		rest = after
	}
}

func atoiPtr(s string) *int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return &n
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// itemsText turns a body that is a JSON array of content items (what MCP
// tools return) into its text; any other body is returned as it is.
func itemsText(body string) string {
	if !strings.HasPrefix(strings.TrimSpace(body), "[{") {
		return body
	}
	var it []item
	if json.Unmarshal([]byte(body), &it) != nil || len(it) == 0 {
		return body
	}
	for _, x := range it {
		if x.Type == "" {
			return body
		}
	}
	return items(it).text()
}
