package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport ends the connection on the first line it cannot
// decode, and writes no reply once its input has ended. stdioConn sits
// between the client's streams and the SDK: it hands the SDK only lines that
// are one JSON-RPC message each, answers every other line itself with a
// JSON-RPC error, and at the end of the input holds the end back until the
// calls already read are answered.

// maxMessageBytes bounds one line from the client. A longer line is read
// past without being kept and answered with an error.
const maxMessageBytes = mcp.DefaultMaxLineLength

// drainGrace bounds how long the end of the client's input waits for the
// calls read before it to be answered.
const drainGrace = shutdownGrace

// keepBufferBytes is the largest line buffer kept between lines; a bigger
// one, left by a huge message, is let go.
const keepBufferBytes = 1 << 20

// methodCancelled is the notification by which a client gives up a call it
// made; the call needs no answer after it.
const methodCancelled = "notifications/cancelled"

// ServeStdio serves one client over in and out as MCP's stdio transport
// says: one JSON-RPC message per line. Unlike the SDK's own stdio
// transport, a line that is not a message (not JSON, not an object, a
// batch, too long) gets a JSON-RPC error response and the server goes on,
// and the end of the input first ends the running commands and waits for
// the answers to the calls already read. It returns like Run.
//
// A stop through ctx (SIGTERM) ends the running commands first and lets
// their calls be answered (within drainGrace) before the connection
// closes. A call the client cancelled is not answered, as the spec says.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	conn := newStdioConn(in, out, s.stopOnce, s.warn)
	conn.needed = s.noticeNeeded
	run, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
			conn.drain() // end the running commands, wait for their answers
			stop()
		case <-run.Done():
		}
	}()
	return s.Run(run, &mcp.IOTransport{Reader: conn, Writer: conn, MaxLineLength: -1})
}

// stdioConn is the client's input and output as the SDK's IOTransport sees
// them. The SDK reads from one goroutine and writes each message with one
// Write call ending in a newline, so a mutex around the output keeps its
// messages and stdioConn's own replies whole.
type stdioConn struct {
	in     *bufio.Reader
	closer io.Closer // in's, if it has one
	onEOF  func()    // ends the running commands at the end of the input
	warn   func(string)

	// Read's state, used only by the SDK's reading goroutine.
	buf      []byte // the line being read
	msg      []byte // the message being handed to the SDK
	off      int    // how much of msg was handed over
	eof      bool
	finished bool // the end of the input was handed over

	// needed, when set, tells whether a notification the server sends of
	// its own accord is worth sending (see Server.noticeNeeded).
	needed func(method string) bool

	mu          sync.Mutex
	out         io.Writer
	broken      bool                    // a write failed: nothing more reaches the client
	pending     map[jsonrpc.ID]struct{} // calls read and not yet answered
	cancelled   map[jsonrpc.ID]struct{} // calls the client gave up: their answers are not sent
	initialized bool                    // an initialize request was handed to the SDK
	drained     chan struct{}           // while the end of input waits: closed when nothing is pending

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

func newStdioConn(in io.Reader, out io.Writer, onEOF func(), warn func(string)) *stdioConn {
	c := &stdioConn{in: bufio.NewReaderSize(in, 64<<10), out: out, onEOF: onEOF, warn: warn,
		pending: map[jsonrpc.ID]struct{}{}, cancelled: map[jsonrpc.ID]struct{}{}, closed: make(chan struct{})}
	if cl, ok := in.(io.Closer); ok {
		c.closer = cl
	}
	return c
}

// Read hands the SDK the client's messages, one line each.
func (c *stdioConn) Read(p []byte) (int, error) {
	for c.off >= len(c.msg) {
		if err := c.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.msg[c.off:])
	c.off += n
	return n, nil
}

// next reads one line: a message becomes the next thing Read hands over,
// anything else is answered here. At the end of the input it waits for the
// pending answers and reports io.EOF.
func (c *stdioConn) next() error {
	c.msg, c.off = nil, 0
	if c.eof {
		if !c.finished {
			c.finished = true
			c.drain()
		}
		return io.EOF
	}
	line, tooLong, err := c.readLine()
	switch {
	case errors.Is(err, io.EOF):
		c.eof = true // a last line without a newline is still a line
	case err != nil:
		return fmt.Errorf("read the client's messages: %w", err)
	}
	if tooLong {
		c.reject(&rejection{code: jsonrpc.CodeInvalidRequest,
			message: fmt.Sprintf("Invalid Request: the message is longer than %d bytes", maxMessageBytes)})
		return nil
	}
	sc := screen(line)
	if sc.reject == nil && sc.parsed != nil {
		sc.reject = c.checkLifecycle(sc.parsed)
	}
	if sc.reject != nil {
		c.reject(sc.reject)
		return nil
	}
	if sc.msg != nil {
		c.track(sc.parsed)
		c.msg = append(sc.msg, '\n') // sc.msg lies in c.buf, which waits until msg is handed over
	}
	return nil
}

// readLine reads up to and including the next newline, or to the end of
// the input. A line longer than maxMessageBytes is read to its end but not
// kept: tooLong is true and line empty.
func (c *stdioConn) readLine() (line []byte, tooLong bool, err error) {
	if cap(c.buf) > keepBufferBytes {
		c.buf = nil
	}
	c.buf = c.buf[:0]
	for {
		chunk, err := c.in.ReadSlice('\n')
		if !tooLong && len(c.buf)+len(chunk) > maxMessageBytes+len("\r\n") {
			tooLong, c.buf = true, c.buf[:0]
		}
		if !tooLong {
			c.buf = append(c.buf, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return c.buf, tooLong, err
		}
	}
}

// track notes a call the SDK will answer, and forgets one the client gave up.
func (c *stdioConn) track(m jsonrpc.Message) {
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		c.pending[req.ID] = struct{}{}
		return
	}
	if req.Method == methodCancelled {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				if _, ok := c.pending[id]; ok {
					delete(c.pending, id)
					c.cancelled[id] = struct{}{}
				}
			}
		}
		c.checkDrained()
	}
}

// checkLifecycle refuses what the protocol's lifecycle does not allow,
// with the JSON-RPC error the SDK would otherwise send with code 0: a
// request before initialize (Invalid Request), an initialize whose params
// are not those of the spec (Invalid params), a second initialize
// (Invalid Request).
func (c *stdioConn) checkLifecycle(m jsonrpc.Message) *rejection {
	req, ok := m.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil
	}
	if newProtocol(req.Params) {
		return nil // a sessionless request: the SDK checks it and answers with the right codes
	}
	id, _ := json.Marshal(req.ID.Raw())
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.Method == methodInitialize && c.initialized:
		return &rejection{id: id, code: jsonrpc.CodeInvalidRequest, lifecycle: true,
			message: "Invalid Request: the session is already initialized; initialize is sent once"}
	case req.Method == methodInitialize:
		if why := badInitialize(req.Params); why != "" {
			return &rejection{id: id, code: jsonrpc.CodeInvalidParams, lifecycle: true, message: "Invalid params: " + why}
		}
		c.initialized = true
	case !c.initialized && !beforeInitialize[req.Method]:
		return &rejection{id: id, code: jsonrpc.CodeInvalidRequest, lifecycle: true,
			message: fmt.Sprintf("Invalid Request: %q before initialize; the session starts with an initialize request", req.Method)}
	}
	return nil
}

// methodInitialize starts a session.
const methodInitialize = "initialize"

// beforeInitialize are the requests a client may send before it is
// initialized (the SDK answers the ones that do not apply itself).
var beforeInitialize = map[string]bool{methodInitialize: true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "server/discover": true}

// newProtocolMeta is the _meta key of a request of the sessionless protocol
// (2026-07-28), which needs no initialize.
const newProtocolMeta = "io.modelcontextprotocol/protocolVersion"

// newProtocol reports whether a request's params carry newProtocolMeta.
func newProtocol(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	return json.Unmarshal(params, &p) == nil && p.Meta[newProtocolMeta] != nil
}

// badInitialize says what is wrong with an initialize request's params,
// "" when they hold what the spec requires: a protocolVersion string, a
// capabilities object and a clientInfo object with a name and a version.
func badInitialize(params json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		return "initialize takes an object with protocolVersion, capabilities and clientInfo"
	}
	var version string
	if json.Unmarshal(p["protocolVersion"], &version) != nil || version == "" {
		return "protocolVersion must be a string such as \"2025-06-18\""
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(p["capabilities"], &caps) != nil || caps == nil {
		return "capabilities must be an object"
	}
	var info struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	if json.Unmarshal(p["clientInfo"], &info) != nil || info.Name == nil || info.Version == nil {
		return "clientInfo must be an object with a name and a version"
	}
	return ""
}

// reject answers a line that is not a message.
func (c *stdioConn) reject(r *rejection) {
	if c.warn != nil && !r.lifecycle {
		c.warn("a line from the client is not a JSON-RPC message: " + r.message)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.out.Write(r.response()); err != nil {
		c.broken = true
		c.checkDrained()
	}
}

// Write sends one of the SDK's messages to the client and notes the call
// it answers.
func (c *stdioConn) Write(p []byte) (int, error) {
	if c.needed != nil && bytes.HasPrefix(p, []byte(`{"jsonrpc":"2.0","method":"notifications/`)) {
		if method, ok := notificationMethod(p); ok && !c.needed(method) {
			return len(p), nil
		}
	}
	c.mu.Lock()
	waiting := len(c.pending)+len(c.cancelled) > 0
	c.mu.Unlock()
	var id jsonrpc.ID
	answers := waiting && answeredID(p, &id)
	msg := fixErrorCode(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, gaveUp := c.cancelled[id]; answers && gaveUp {
		delete(c.cancelled, id) // the client cancelled the call: no answer
		return len(p), nil
	}
	_, err := c.out.Write(msg)
	if err != nil {
		c.broken = true
	}
	if answers {
		delete(c.pending, id)
	}
	c.checkDrained()
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// notificationMethod is the method of an encoded notification.
func notificationMethod(p []byte) (string, bool) {
	var m struct {
		Method string           `json:"method"`
		ID     *json.RawMessage `json:"id"`
	}
	if json.Unmarshal(p, &m) != nil || m.ID != nil || m.Method == "" {
		return "", false
	}
	return m.Method, true
}

// fixErrorCode gives an error response with code 0, which JSON-RPC does not
// have and the SDK sends for some failures of its own, the code of an
// internal error. Anything else is returned as it is.
func fixErrorCode(p []byte) []byte {
	if !bytes.Contains(p, []byte(`"code":0`)) {
		return p
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil || m["error"] == nil {
		return p
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(m["error"], &e) != nil || string(e["code"]) != "0" {
		return p
	}
	e["code"] = json.RawMessage(fmt.Sprint(jsonrpc.CodeInternalError))
	fixed, err := json.Marshal(e)
	if err != nil {
		return p
	}
	m["error"] = fixed
	out, err := json.Marshal(m)
	if err != nil {
		return p
	}
	return append(out, '\n')
}

// answeredID reports whether the encoded message p is a response, and sets
// *id to the call it answers. It reads only as far as it needs: the SDK
// writes "id" before "result" and "error", so a big result is not read.
func answeredID(p []byte, id *jsonrpc.ID) bool {
	dec := json.NewDecoder(bytes.NewReader(p))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var raw any
	var haveID bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case "method":
			return false // a request or a notification
		case "id":
			if dec.Decode(&raw) != nil {
				return false
			}
			haveID = true
			continue
		case "result", "error":
			if haveID {
				return setID(raw, id)
			}
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return haveID && setID(raw, id)
}

func setID(raw any, id *jsonrpc.ID) bool {
	parsed, err := jsonrpc.MakeID(raw)
	if err != nil {
		return false
	}
	*id = parsed
	return true
}

// checkDrained ends the wait at the end of the input once nothing is left
// to answer or nothing can reach the client any more. c.mu is held.
func (c *stdioConn) checkDrained() {
	if c.drained != nil && (len(c.pending) == 0 || c.broken) {
		close(c.drained)
		c.drained = nil
	}
}

// drain ends the running commands, then waits until the calls read so far
// are answered, the output failed, the connection closed or drainGrace
// passed.
func (c *stdioConn) drain() {
	if c.onEOF != nil {
		c.onEOF()
	}
	c.mu.Lock()
	if len(c.pending) == 0 || c.broken {
		c.mu.Unlock()
		return
	}
	done := make(chan struct{})
	c.drained = done
	c.mu.Unlock()
	timer := time.NewTimer(drainGrace)
	defer timer.Stop()
	select {
	case <-done:
	case <-c.closed:
	case <-timer.C:
	}
}

// Close closes the input, which unblocks a Read waiting for it. The output
// is the caller's to close. Close may be called more than once.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.closer != nil {
			c.closeErr = c.closer.Close()
		}
	})
	return c.closeErr
}

// screened is what becomes of one line from the client: a message for the
// SDK, an error response, or nothing (a blank line).
type screened struct {
	msg    []byte          // the message, without surrounding whitespace
	parsed jsonrpc.Message // msg decoded
	reject *rejection
}

// rejection is the JSON-RPC error response to a line that is not a message,
// or to a request the lifecycle does not allow.
type rejection struct {
	id        json.RawMessage // the request's id when the line is a request with a usable one; nil is null
	code      int64
	message   string
	lifecycle bool // a message, refused for coming at the wrong time or with the wrong params
}

// response is the encoded error response, newline included.
func (r *rejection) response() []byte {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{r.code, r.message}})
	if err != nil { // cannot happen: every part is plain data
		data = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	return append(data, '\n')
}

// screen sorts one line from the client. A message is one JSON object the
// SDK decodes as a JSON-RPC request, notification or response; a blank
// line is skipped; anything else is rejected: a Parse error when it is not
// JSON, Invalid Request otherwise (MCP removed JSON-RPC batches in
// 2025-06-18). The id is echoed only from an object with a method and a
// string or number id, so that a broken response from the client is never
// mistaken for an answer to the client's own call.
func screen(line []byte) screened {
	line = bytes.Trim(line, " \t\r\n")
	if len(line) == 0 {
		return screened{}
	}
	if !json.Valid(line) {
		err := json.Unmarshal(line, new(any)) // the reason: Unmarshal checks the syntax first
		return screened{reject: &rejection{code: jsonrpc.CodeParseError, message: "Parse error: " + errText(err)}}
	}
	switch line[0] {
	case '{':
	case '[':
		return screened{reject: &rejection{code: jsonrpc.CodeInvalidRequest,
			message: "Invalid Request: JSON-RPC batches are not supported; send one message per line"}}
	default:
		return screened{reject: &rejection{code: jsonrpc.CodeInvalidRequest,
			message: "Invalid Request: a message is a JSON object, not " + jsonKind(line[0])}}
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return screened{reject: &rejection{id: requestID(line), code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: " + err.Error()}}
	}
	if r, ok := m.(*jsonrpc.Response); ok && r.Result == nil && r.Error == nil {
		// Neither a request (no method) nor a response (no result, no
		// error): the SDK would drop it without a word.
		return screened{reject: &rejection{code: jsonrpc.CodeInvalidRequest,
			message: "Invalid Request: a message has a method (a request or notification), or a result or an error (a response)"}}
	}
	return screened{msg: line, parsed: m}
}

// requestID is the id of the request object line, when it has a method and
// a string or number id; nil otherwise.
func requestID(line []byte) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil {
		return nil
	}
	id, hasMethod := fields["id"], fields["method"] != nil
	if !hasMethod || len(id) == 0 {
		return nil
	}
	switch c := id[0]; {
	case c == '-' || (c >= '0' && c <= '9'):
		return id
	case c == '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return nil
		}
		out, err := json.Marshal(s) // valid UTF-8 again, as the rest of the response
		if err != nil {
			return nil
		}
		return out
	}
	return nil
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func errText(err error) string {
	if err == nil {
		return "not JSON"
	}
	return err.Error()
}
