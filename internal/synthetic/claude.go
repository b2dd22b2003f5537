package synthetic

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ClaudeOptions shapes one Claude Code transcript.
type ClaudeOptions struct {
	// SessionID is the session's uuid; a random one when empty.
	SessionID string
	// Project names the project folder (/home/dev/<Project>).
	Project string
	// Start is when the session begins.
	Start time.Time
	// Bytes is about how large the transcript grows: turns are written
	// until it is at least this big.
	Bytes int64
	// Seed makes the content repeatable.
	Seed uint64
	// Version is the Claude Code version written on each record.
	Version string
}

// Transcript is what a generator wrote.
type Transcript struct {
	SessionID string
	Path      string
	Bytes     int64
	Lines     int
	Prompts   int
	ToolCalls int
	Commands  int // Bash calls
	Failed    int // Bash calls that failed
	Delegated int // Task calls
	First     time.Time
	Last      time.Time
}

// claudeWriter writes one transcript's records.
type claudeWriter struct {
	o     ClaudeOptions
	t     *text
	w     *bufio.Writer
	buf   []byte
	ts    time.Time
	prev  string // the previous record's uuid
	res   Transcript
	err   error
	cwd   string
	agent string // set for a sub-agent's own file
	subs  func(agentID string) (*claudeWriter, error)
	// prompt is the first prompt of a sub-agent's file: its task.
	prompt string
}

// WriteClaude writes a Claude Code transcript to w, in the shape Claude
// Code 2.1 writes: prompts, assistant messages streamed one content block
// per record and sharing their message id and usage, tool results with
// their structured toolUseResult, hook progress records, file-history
// snapshots, turn durations and, now and then, a sub-agent's work as
// agent_progress records.
func WriteClaude(w io.Writer, o ClaudeOptions) (Transcript, error) {
	cw := newClaudeWriter(w, o)
	return cw.run()
}

// WriteClaudeFile writes a transcript to path (folders created) and sets
// the file's modification time to its last record, as if Claude Code had
// just written it. Sub-agents' own files go beside it, in
// <session>/subagents/agent-<id>.jsonl.
func WriteClaudeFile(path string, o ClaudeOptions) (Transcript, error) {
	if o.SessionID == "" {
		o.SessionID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Transcript{}, err
	}
	f, err := os.Create(path)
	if err != nil {
		return Transcript{}, err
	}
	cw := newClaudeWriter(f, o)
	var subFiles []*os.File
	cw.subs = func(agentID string) (*claudeWriter, error) {
		p := filepath.Join(filepath.Dir(path), cw.o.SessionID, "subagents", "agent-"+agentID+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		sf, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		subFiles = append(subFiles, sf)
		sub := newClaudeWriter(sf, cw.o)
		sub.agent = agentID
		return sub, nil
	}
	res, err := cw.run()
	for _, sf := range subFiles {
		if cerr := sf.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, err
	}
	res.Path = path
	return res, os.Chtimes(path, res.Last, res.Last)
}

func newClaudeWriter(w io.Writer, o ClaudeOptions) *claudeWriter {
	if o.Project == "" {
		o.Project = "shop"
	}
	if o.Version == "" {
		o.Version = "2.1.40"
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	}
	t := newText(o.Seed, o.Project)
	if o.SessionID == "" {
		o.SessionID = t.uuid()
	}
	return &claudeWriter{o: o, t: t, w: bufio.NewWriterSize(w, 1<<20), ts: o.Start, cwd: "/home/dev/" + o.Project,
		res: Transcript{SessionID: o.SessionID, First: o.Start}}
}

func (c *claudeWriter) run() (Transcript, error) {
	for c.err == nil && (c.res.Bytes < c.o.Bytes || c.res.Prompts == 0) {
		c.turn()
	}
	if err := c.w.Flush(); c.err == nil {
		c.err = err
	}
	c.res.Last = c.ts
	return c.res, c.err
}

// tick moves the clock on by lo to hi seconds and returns it.
func (c *claudeWriter) tick(lo, hi float64) string {
	c.ts = c.ts.Add(c.t.gap(lo, hi))
	return c.ts.UTC().Format("2006-01-02T15:04:05.000Z")
}

// begin starts a record with the fields every conversational record has.
func (c *claudeWriter) begin() {
	b := c.buf[:0]
	b = append(b, `{"parentUuid":`...)
	if c.prev == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, c.prev)
	}
	b = append(b, `,"isSidechain":`...)
	b = strconv.AppendBool(b, c.agent != "")
	b = append(b, `,"userType":"external","cwd":`...)
	b = appendJSONString(b, c.cwd)
	b = append(b, `,"sessionId":`...)
	b = appendJSONString(b, c.o.SessionID)
	b = append(b, `,"version":`...)
	b = appendJSONString(b, c.o.Version)
	b = append(b, `,"gitBranch":"main"`...)
	if c.agent != "" {
		b = append(b, `,"agentId":`...)
		b = appendJSONString(b, c.agent)
	}
	c.buf = b
}

// raw appends JSON text to the record.
func (c *claudeWriter) raw(s string) { c.buf = append(c.buf, s...) }

// str appends ,"key":"value".
func (c *claudeWriter) str(key, value string) {
	c.buf = append(c.buf, `,"`...)
	c.buf = append(c.buf, key...)
	c.buf = append(c.buf, `":`...)
	c.buf = appendJSONString(c.buf, value)
}

// end closes the record with its uuid and time and writes it; it returns
// the record's uuid.
func (c *claudeWriter) end(ts string) string {
	id := c.t.uuid()
	c.str("uuid", id)
	c.str("timestamp", ts)
	c.buf = append(c.buf, "}\n"...)
	c.write(c.buf)
	c.prev = id
	return id
}

func (c *claudeWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.res.Bytes += int64(n)
	c.res.Lines++
	c.err = err
}

// turn is one prompt and everything the agent does for it.
func (c *claudeWriter) turn() {
	t := c.t
	prompt := t.sentence(6, 30)
	if t.r.IntN(4) == 0 {
		prompt += "\n\n" + t.paragraph()
	}
	if c.prompt != "" {
		prompt, c.prompt = c.prompt, ""
	}
	ts := c.tick(20, 300)
	if c.agent == "" {
		snap := t.uuid()
		c.buf = append(c.buf[:0], `{"type":"file-history-snapshot","messageId":`...)
		c.buf = appendJSONString(c.buf, snap)
		c.buf = append(c.buf, `,"snapshot":{"messageId":`...)
		c.buf = appendJSONString(c.buf, snap)
		c.buf = append(c.buf, `,"trackedFileBackups":{},"timestamp":`...)
		c.buf = appendJSONString(c.buf, ts)
		c.buf = append(c.buf, "},\"isSnapshotUpdate\":false}\n"...)
		c.write(c.buf)
	}
	c.begin()
	c.raw(`,"type":"user","message":{"role":"user","content":`)
	c.buf = appendJSONString(c.buf, prompt)
	c.raw(`}`)
	c.end(ts)
	c.res.Prompts++
	model := t.pick(models)
	for step := range t.between(1, 8) {
		msg := "msg_01" + t.base64ish(22)
		usage := fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":%d},"output_tokens":%d,"service_tier":"standard"}`,
			t.between(1, 8), t.r.IntN(20000), t.r.IntN(90000), t.r.IntN(5000), t.between(10, 2000))
		block := func(content string) string {
			c.begin()
			c.raw(`,"message":{"model":`)
			c.buf = appendJSONString(c.buf, model)
			c.raw(`,"id":`)
			c.buf = appendJSONString(c.buf, msg)
			c.raw(`,"type":"message","role":"assistant","content":[`)
			c.raw(content)
			c.raw(`],"stop_reason":null,"stop_sequence":null,"usage":`)
			c.raw(usage)
			c.raw(`},"requestId":"req_011C`)
			c.raw(msg[6:])
			c.raw(`","type":"assistant"`)
			return c.end(c.tick(0.3, 4))
		}
		if step == 0 && t.r.IntN(2) == 0 {
			block(`{"type":"thinking","thinking":` + string(appendJSONString(nil, t.paragraph())) +
				`,"signature":"` + t.base64ish(t.between(200, 1200)) + `"}`)
		}
		block(`{"type":"text","text":` + string(appendJSONString(nil, t.paragraph())) + `}`)
		calls := t.between(1, 3)
		if step > 4 && t.r.IntN(2) == 0 {
			calls = 0
		}
		for range calls {
			c.toolCall(block)
		}
		if calls == 0 {
			break
		}
	}
	c.begin()
	c.raw(`,"message":{"model":`)
	c.buf = appendJSONString(c.buf, model)
	c.raw(`,"id":"msg_01` + t.base64ish(22) + `","type":"message","role":"assistant","content":[{"type":"text","text":`)
	c.buf = appendJSONString(c.buf, t.answer())
	c.raw(`}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":310,"cache_read_input_tokens":52000,"output_tokens":` + strconv.Itoa(t.between(50, 900)) + `}},"requestId":"req_011C` + t.base64ish(22) + `","type":"assistant"`)
	c.end(c.tick(1, 20))
	if c.agent == "" {
		c.begin()
		c.raw(`,"type":"system","subtype":"turn_duration","durationMs":` + strconv.Itoa(t.between(2000, 600000)) + `,"isMeta":false`)
		c.end(c.tick(0, 0.01))
	}
}

// toolCall writes one tool_use block, the hook's progress record and the
// result.
func (c *claudeWriter) toolCall(block func(string) string) {
	t := c.t
	id := "toolu_01" + t.base64ish(22)
	var name, input, content, tur string
	isError := false
	switch k := t.r.IntN(100); {
	case k < 35:
		name = "Bash"
		cmd := t.pick(bashCommands)
		fail := t.r.IntN(8) == 0
		out := t.output(cmd, fail)
		if t.r.IntN(2000) == 0 {
			out = strings.Repeat(t.output(cmd, false), t.between(100, 1000)) // a build log, now and then
		}
		input = `{"command":` + string(appendJSONString(nil, cmd)) + `,"description":` + string(appendJSONString(nil, t.sentence(2, 6))) + `}`
		if fail {
			isError = true
			content = "Exit code 1\n" + out
			tur = string(appendJSONString(nil, "Error: Exit code 1\n"+out))
			c.res.Failed++
		} else {
			content = out
			tur = `{"stdout":` + string(appendJSONString(nil, out)) + `,"stderr":"","interrupted":false,"isImage":false}`
		}
		c.res.Commands++
	case k < 60:
		name = "Read"
		p := t.path()
		n := t.between(20, 400)
		file := t.code(n, 1)
		if t.r.IntN(3000) == 0 {
			file = t.code(t.between(5000, 20000), 1) // a big file, now and then
		}
		input = `{"file_path":` + string(appendJSONString(nil, p)) + `}`
		content = file
		tur = `{"type":"text","file":{"filePath":` + string(appendJSONString(nil, p)) + `,"content":` + string(appendJSONString(nil, file)) +
			`,"numLines":` + strconv.Itoa(n) + `,"startLine":1,"totalLines":` + strconv.Itoa(n) + `}}`
	case k < 75:
		name = "Edit"
		p := t.path()
		old, repl := t.codeLine(), t.codeLine()
		orig := t.code(t.between(40, 300), 0)
		input = `{"file_path":` + string(appendJSONString(nil, p)) + `,"old_string":` + string(appendJSONString(nil, old)) + `,"new_string":` + string(appendJSONString(nil, repl)) + `}`
		content = "The file " + p + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + t.code(t.between(5, 15), t.between(1, 200))
		tur = `{"filePath":` + string(appendJSONString(nil, p)) + `,"oldString":` + string(appendJSONString(nil, old)) + `,"newString":` + string(appendJSONString(nil, repl)) +
			`,"originalFile":` + string(appendJSONString(nil, orig)) + `,"structuredPatch":[{"oldStart":12,"oldLines":3,"newStart":12,"newLines":3,"lines":[` +
			string(appendJSONString(nil, " "+t.codeLine())) + `,` + string(appendJSONString(nil, "-"+old)) + `,` + string(appendJSONString(nil, "+"+repl)) + `]}],"userModified":false,"replaceAll":false}`
	case k < 85:
		name = "Grep"
		pat := t.ident()
		out := t.output("rg", false)
		input = `{"pattern":` + string(appendJSONString(nil, pat)) + `,"output_mode":"content","-n":true}`
		content = out
		tur = `{"mode":"content","numFiles":3,"filenames":[],"content":` + string(appendJSONString(nil, out)) + `,"numLines":` + strconv.Itoa(strings.Count(out, "\n")) + `}`
	case k < 92:
		name = "Glob"
		var files []string
		for range t.between(1, 15) {
			files = append(files, t.path())
		}
		input = `{"pattern":"**/*` + t.pick(extensions) + `"}`
		content = strings.Join(files, "\n")
		quoted := make([]string, len(files))
		for i, f := range files {
			quoted[i] = string(appendJSONString(nil, f))
		}
		tur = `{"filenames":[` + strings.Join(quoted, ",") + `],"durationMs":` + strconv.Itoa(t.between(2, 90)) + `,"numFiles":` + strconv.Itoa(len(files)) + `,"truncated":false}`
	case k < 96:
		name = "Write"
		p := t.path()
		body := t.code(t.between(10, 120), 0)
		input = `{"file_path":` + string(appendJSONString(nil, p)) + `,"content":` + string(appendJSONString(nil, body)) + `}`
		content = "File created successfully at: " + p
		tur = `{"type":"create","filePath":` + string(appendJSONString(nil, p)) + `,"content":` + string(appendJSONString(nil, body)) + `,"structuredPatch":[]}`
	case k < 99 || c.agent != "":
		name = "TodoWrite"
		input = `{"todos":[{"content":` + string(appendJSONString(nil, t.sentence(3, 8))) + `,"status":"in_progress","activeForm":` + string(appendJSONString(nil, t.sentence(3, 8))) + `}]}`
		content = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress."
		tur = `{"oldTodos":[],"newTodos":[]}`
	default:
		c.delegate(block, id)
		return
	}
	c.res.ToolCalls++
	toolLine := block(`{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `,"caller":{"type":"direct"}}`)
	if c.agent == "" {
		c.begin()
		c.raw(`,"type":"progress","data":{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:` + name + `","command":"cuff hook claude"},"parentToolUseID":"` + id + `","toolUseID":"` + id + `"`)
		c.end(c.tick(0, 0.05))
	}
	c.result(id, content, tur, isError, toolLine, c.tick(0.1, 30))
}

// result writes the user record that carries a tool's result.
func (c *claudeWriter) result(id, content, tur string, isError bool, source, ts string) {
	c.begin()
	c.raw(`,"type":"user","message":{"role":"user","content":[{"tool_use_id":"` + id + `","type":"tool_result","content":`)
	c.buf = appendJSONString(c.buf, content)
	if isError {
		c.raw(`,"is_error":true`)
	}
	c.raw(`}]}`)
	id2 := c.t.uuid()
	c.str("uuid", id2)
	c.str("timestamp", ts)
	c.raw(`,"toolUseResult":`)
	c.raw(tur)
	c.str("sourceToolAssistantUUID", source)
	c.buf = append(c.buf, "}\n"...)
	c.write(c.buf)
	c.prev = id2
}

// delegate writes a Task call: the sub-agent's records nested in
// agent_progress records, its own file when the writer has a folder, and
// the result.
func (c *claudeWriter) delegate(block func(string) string, id string) {
	t := c.t
	agentID := fmt.Sprintf("a%07x", t.r.Uint32()&0xfffffff)
	prompt := t.sentence(8, 25)
	toolLine := block(`{"type":"tool_use","id":"` + id + `","name":"Task","input":{"description":` + string(appendJSONString(nil, t.sentence(2, 4))) +
		`,"prompt":` + string(appendJSONString(nil, prompt)) + `,"subagent_type":"Explore"},"caller":{"type":"direct"}}`)
	c.res.ToolCalls++
	c.res.Delegated++
	var sub *claudeWriter
	if c.subs != nil {
		var err error
		if sub, err = c.subs(agentID); err != nil {
			c.err = err
			return
		}
		sub.ts, sub.prompt = c.ts, prompt
		sub.turn()
		if err := sub.w.Flush(); err != nil {
			c.err = err
		}
		c.ts = sub.ts
	}
	for i := range t.between(2, 6) {
		nested := `{"type":"assistant","message":{"model":"claude-haiku-4-5-20251001","id":"msg_01` + t.base64ish(22) +
			`","type":"message","role":"assistant","content":[{"type":"text","text":` + string(appendJSONString(nil, t.sentence(5, 15))) +
			`}],"usage":{"input_tokens":3,"output_tokens":40}},"uuid":"` + t.uuid() + `","timestamp":"` + c.tick(0.5, 5) + `"}`
		c.begin()
		c.raw(`,"type":"progress","data":{"message":` + nested + `,"normalizedMessages":[],"type":"agent_progress","prompt":` +
			string(appendJSONString(nil, prompt)) + `,"agentId":"` + agentID + `"},"toolUseID":"agent_msg_` + strconv.Itoa(i) + id[8:] + `","parentToolUseID":"` + id + `"`)
		c.end(c.tick(0, 0.05))
	}
	answer := t.answer()
	tur := `{"status":"completed","prompt":` + string(appendJSONString(nil, prompt)) + `,"agentId":"` + agentID + `","content":[{"type":"text","text":` +
		string(appendJSONString(nil, answer)) + `}],"totalDurationMs":` + strconv.Itoa(t.between(5000, 300000)) + `,"totalTokens":` + strconv.Itoa(t.between(1000, 90000)) + `,"totalToolUseCount":` + strconv.Itoa(t.between(1, 30)) + `}`
	c.begin()
	c.raw(`,"type":"user","message":{"role":"user","content":[{"tool_use_id":"` + id + `","type":"tool_result","content":[{"type":"text","text":`)
	c.buf = appendJSONString(c.buf, answer)
	c.raw(`}]}]}`)
	uid := t.uuid()
	c.str("uuid", uid)
	c.str("timestamp", c.tick(1, 10))
	c.raw(`,"toolUseResult":` + tur)
	c.str("sourceToolAssistantUUID", toolLine)
	c.buf = append(c.buf, "}\n"...)
	c.write(c.buf)
	c.prev = uid
}
