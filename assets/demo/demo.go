// Package demo holds cuff's embedded demo session: a recorded Claude Code
// session that fixes a bug in a small Go project, with every kind of event
// (chat, tool calls, a sub-agent, failing, timed-out and truncated commands,
// an approved and a denied approval). `cuff demo` plays it live.
//
// session.jsonl is generated; after changing the generator, run from the
// module root:
//
//	go run ./assets/demo/internal/gen > assets/demo/session.jsonl
package demo

import (
	"bytes"
	_ "embed"
)

//go:generate sh -c "go run ./internal/gen > session.jsonl"

// SessionID is the id of the demo session.
const SessionID = "20260118_143052_a7b3c9d2-e4f5"

//go:embed session.jsonl
var session []byte

// Session returns the demo session as JSONL, one event a line. The slice is
// a copy: callers may modify it.
func Session() []byte { return bytes.Clone(session) }
