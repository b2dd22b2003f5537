// Package foreign reads any transcript cuff knows, from its content: a
// Claude Code transcript, a Codex rollout or cuff's own session file. It
// tells them apart (Detect) and decodes each into cuff's events (Decode).
package foreign

import (
	"bytes"
	"encoding/json"
)

// Format is a kind of transcript file.
type Format int

// The formats Detect tells apart.
const (
	FormatUnknown Format = iota
	FormatNative         // cuff's own session JSONL
	FormatClaude         // a Claude Code transcript (or sub-agent file)
	FormatCodex          // a Codex CLI rollout
)

// String names the format for messages.
func (f Format) String() string {
	switch f {
	case FormatNative:
		return "cuff session"
	case FormatClaude:
		return "Claude Code transcript"
	case FormatCodex:
		return "Codex rollout"
	}
	return "unknown"
}

// HeadSize is how much of a file Detect needs to see: enough for a few
// lines, or the start of a first line that is very long.
const HeadSize = 64 << 10

// maxDetectLines bounds the lines Detect looks at.
const maxDetectLines = 32

// Record types that only one format writes.
var (
	codexTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true,
		"turn_context": true, "compacted": true}
	claudeTypes = map[string]bool{"user": true, "assistant": true, "summary": true, "system": true,
		"progress": true, "file-history-snapshot": true, "queue-operation": true, "attachment": true}
	// claudeKeys are base fields every Claude Code record of a conversation has.
	claudeKeys = []string{"sessionId", "parentUuid", "isSidechain", "leafUuid", "userType"}
)

// Detect tells the format of a file from its first bytes (HeadSize is
// plenty; the last line may be cut off). It looks at the lines' fields, not
// at the file's name, and passes over blank and malformed lines.
func Detect(head []byte) Format {
	for i := 0; i < maxDetectLines && len(head) > 0; i++ {
		var ln []byte
		ln, head, _ = bytes.Cut(head, []byte{'\n'})
		ln = bytes.TrimSpace(ln)
		if len(ln) == 0 || ln[0] != '{' {
			continue
		}
		if f := detectLine(topLevel(ln)); f != FormatUnknown {
			return f
		}
	}
	return FormatUnknown
}

// detectLine tells the format from one record's top-level fields.
func detectLine(fields map[string]string) Format {
	_, hasV := fields["v"]
	_, hasSeq := fields["seq"]
	_, hasSession := fields["session_id"]
	_, hasPayload := fields["payload"]
	typ := fields["type"]
	switch {
	case hasV && hasSeq && hasSession:
		return FormatNative
	case codexTypes[typ] && (hasPayload || len(fields) <= 2):
		return FormatCodex
	}
	for _, k := range claudeKeys {
		if _, ok := fields[k]; ok {
			return FormatClaude
		}
	}
	if claudeTypes[typ] && !hasPayload {
		return FormatClaude
	}
	return FormatUnknown
}

// topLevel reads the top-level fields of a JSON object, as far as the
// bytes go: string values as they are, other values as "". A record cut
// off mid-way still gives the fields before the cut.
func topLevel(line []byte) map[string]string {
	fields := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fields
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fields
		}
		key, ok := tok.(string)
		if !ok {
			return fields
		}
		tok, err = dec.Token()
		if err != nil {
			fields[key] = ""
			return fields
		}
		switch v := tok.(type) {
		case string:
			fields[key] = v
		case json.Delim:
			fields[key] = ""
			if !skipNested(dec) {
				return fields
			}
		default:
			fields[key] = ""
		}
	}
	return fields
}

// skipNested reads past the rest of an object or array whose opening
// delimiter was just read; it reports false when the input ends first.
func skipNested(dec *json.Decoder) bool {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
	}
	return true
}
