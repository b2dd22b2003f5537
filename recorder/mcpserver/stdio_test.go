package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lineSeeds are lines a client might send, good and bad.
var lineSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"qa","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"a","result":{}}`,
	`  {"jsonrpc":"2.0","id":2,"method":"ping"}  ` + "\r",
	`not json`,
	``,
	"   \t\r",
	`[]`,
	`[{"jsonrpc":"2.0","id":9,"method":"ping"}]`,
	`42`,
	`"text"`,
	`null`,
	`true`,
	`{}`,
	`{"jsonrpc":"1.0","id":"x","method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":3,"method":7}`,
	`{"jsonrpc":"2.0","id":3}{"jsonrpc":"2.0","id":4}`,
	`{"jsonrpc":"2.0","id":1,"meth`,
	"\xff\xfe",
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"a\":\"\xff\"}}",
	"\ufeff{}",
	"{\"id\":\"\x80\",\"method\":\"\"}", // an id to echo that is not UTF-8
	strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
	`{"jsonrpc":"2.0","id":5,"method":"x","params":` + strings.Repeat(`{"a":`, 1500) + "1" + strings.Repeat("}", 1500) + "}",
}

func TestScreen(t *testing.T) {
	for _, c := range []struct {
		line string
		code int64  // 0: passed on (or skipped, when blank)
		id   string // the id of the error response
	}{
		{lineSeeds[0], 0, ""},
		{lineSeeds[1], 0, ""},
		{lineSeeds[2], 0, ""},
		{lineSeeds[3], 0, ""},
		{`not json`, jsonrpc.CodeParseError, "null"},
		{`{"jsonrpc":"2.0","id":1,"meth`, jsonrpc.CodeParseError, "null"},
		{"\xff\xfe", jsonrpc.CodeParseError, "null"},
		{`{"a":1} {"b":2}`, jsonrpc.CodeParseError, "null"},
		{`[]`, jsonrpc.CodeInvalidRequest, "null"},
		{`[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null"},
		{`42`, jsonrpc.CodeInvalidRequest, "null"},
		{`"text"`, jsonrpc.CodeInvalidRequest, "null"},
		{`null`, jsonrpc.CodeInvalidRequest, "null"},
		{`{}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"1.0","id":"x","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"x"`},
		{`{"jsonrpc":"2.0","id":3,"method":7}`, jsonrpc.CodeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		// A broken response: its id is the client's call's, never echoed.
		{`{"jsonrpc":"1.0","id":4,"result":{}}`, jsonrpc.CodeInvalidRequest, "null"},
		// Neither a method nor a result or an error.
		{`{"jsonrpc":"2.0","id":4}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":4,"result":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}`, 0, ""},
		{lineSeeds[len(lineSeeds)-1], jsonrpc.CodeInvalidRequest, "5"}, // nested deeper than the SDK decodes
	} {
		sc := screen([]byte(c.line))
		switch {
		case c.code == 0 && (sc.reject != nil || sc.msg == nil):
			t.Errorf("%.60q: rejected (%+v), want passed on", c.line, sc.reject)
		case c.code != 0 && sc.reject == nil:
			t.Errorf("%.60q: passed on, want error %d", c.line, c.code)
		case c.code != 0:
			var resp struct {
				ID    json.RawMessage
				Error struct{ Code int64 }
			}
			if err := json.Unmarshal(sc.reject.response(), &resp); err != nil {
				t.Fatalf("%.60q: response %s: %v", c.line, sc.reject.response(), err)
			}
			if resp.Error.Code != c.code || string(resp.ID) != c.id {
				t.Errorf("%.60q: %s, want code %d id %s", c.line, sc.reject.response(), c.code, c.id)
			}
		}
	}
	if sc := screen([]byte(" \r\n")); sc.msg != nil || sc.reject != nil {
		t.Errorf("blank line: %+v, want skipped", sc)
	}
}

// checkScreened checks what screen made of line: a message the SDK decodes
// the same way, or one error response line, or nothing for a blank line.
func checkScreened(t *testing.T, line []byte, sc screened) {
	t.Helper()
	switch {
	case sc.msg != nil && sc.reject != nil:
		t.Fatalf("%q: both passed on and rejected", line)
	case sc.msg != nil:
		if sc.msg[0] != '{' || bytes.ContainsAny(sc.msg, "\n") {
			t.Fatalf("%q: passed on %q, not one object on one line", line, sc.msg)
		}
		if _, err := jsonrpc.DecodeMessage(sc.msg); err != nil {
			t.Fatalf("%q: passed on a message the SDK rejects: %v", line, err)
		}
	case sc.reject != nil:
		resp := sc.reject.response()
		if bytes.IndexByte(resp, '\n') != len(resp)-1 || !utf8.Valid(resp) {
			t.Fatalf("%q: response %q is not one UTF-8 line", line, resp)
		}
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err := json.Unmarshal(resp, &r)
		if err != nil || r.JSONRPC != "2.0" || r.Result != nil || r.Error == nil || r.Error.Message == "" ||
			(r.Error.Code != jsonrpc.CodeParseError && r.Error.Code != jsonrpc.CodeInvalidRequest) {
			t.Fatalf("%q: response %q is not a JSON-RPC error: %v", line, resp, err)
		}
		if id := string(r.ID); id != "null" && !strings.HasPrefix(id, `"`) && json.Unmarshal(r.ID, new(float64)) != nil {
			t.Fatalf("%q: response id %s is not null, a string or a number", line, id)
		}
	default:
		if len(bytes.Trim(line, " \t\r\n")) != 0 {
			t.Fatalf("%q: neither passed on nor answered", line)
		}
	}
}

func FuzzScreen(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkScreened(t, line, screen(line))
	})
}

// output collects what the connection writes, and fails writes on demand.
type output struct {
	mu     sync.Mutex
	b      bytes.Buffer
	broken bool
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.broken {
		return 0, io.ErrClosedPipe
	}
	return o.b.Write(p)
}

func (o *output) lines() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Split(strings.TrimSuffix(o.b.String(), "\n"), "\n")
}

// initLine is an initialize request, which a session starts with.
const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// unanswered is a connection with no server behind it: no call is
// answered, and the end of the input closes it rather than wait for answers.
func unanswered(in io.Reader, out io.Writer, warn func(string)) *stdioConn {
	var c *stdioConn
	c = newStdioConn(in, out, func() { c.Close() }, warn)
	return c
}

// readAll reads the connection the way the SDK does: messages, one per line.
func readAll(t *testing.T, c *stdioConn) []string {
	t.Helper()
	msgs, err := readMessages(c)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return msgs
}

func readMessages(c *stdioConn) ([]string, error) {
	data, err := io.ReadAll(c)
	if err != nil {
		return nil, err
	}
	var msgs []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxMessageBytes+1)
	for sc.Scan() {
		msgs = append(msgs, sc.Text())
	}
	return msgs, sc.Err()
}

func FuzzStdioConn(f *testing.F) {
	f.Add([]byte(strings.Join(lineSeeds, "\n")))
	f.Add([]byte(lineSeeds[0] + "\n" + lineSeeds[4] + "\n" + lineSeeds[3]))
	f.Add([]byte("\n\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out := &output{}
		c := unanswered(bytes.NewReader(in), out, nil)
		msgs := readAll(t, c)
		var replies []string
		if out.b.Len() > 0 {
			replies = out.lines()
		}
		lines := bytes.Split(in, []byte("\n"))
		var blank int
		for _, l := range lines {
			sc := screen(l)
			checkScreened(t, l, sc)
			if sc.msg == nil && sc.reject == nil {
				blank++
			}
		}
		// Every line is passed on, answered or blank; none is lost or doubled.
		if len(msgs)+len(replies)+blank != len(lines) {
			t.Fatalf("%d lines became %d messages, %d replies and %d blank lines", len(lines), len(msgs), len(replies), blank)
		}
		for _, m := range msgs {
			if _, err := jsonrpc.DecodeMessage([]byte(m)); err != nil {
				t.Fatalf("passed on %q: %v", m, err)
			}
		}
	})
}

func TestStdioConnAnswersBadLinesAndGoesOn(t *testing.T) {
	in := strings.Join([]string{lineSeeds[0], "not json", "", "[]", "42", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`}, "\n") +
		"\n" + `{"jsonrpc":"2.0","id":3,"meth` // cut off by the end of the input
	out := &output{}
	var warned []string
	c := unanswered(strings.NewReader(in), out, func(msg string) { warned = append(warned, msg) })
	msgs := readAll(t, c)
	if len(msgs) != 2 || !strings.Contains(msgs[0], `"initialize"`) || !strings.Contains(msgs[1], `"tools/list"`) {
		t.Errorf("passed on %q", msgs)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'o' in literal null (expecting 'u')"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported; send one message per line"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message is a JSON object, not a number"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`,
	}
	if got := out.lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replies:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(warned) != len(want) {
		t.Errorf("warnings: %q", warned)
	}
}

func TestStdioConnLineTooLong(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxMessageBytes) + `"}}`
	fits := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("y", maxMessageBytes-100) + `"}}`
	out := &output{}
	c := unanswered(strings.NewReader(huge+"\n"+fits+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`), out, nil)
	msgs := readAll(t, c)
	if len(msgs) != 2 || msgs[0] != fits || !strings.Contains(msgs[1], `"id":3`) {
		t.Errorf("passed on %d messages", len(msgs))
	}
	if got := out.lines(); len(got) != 1 || !strings.Contains(got[0], `"code":-32600`) || !strings.Contains(got[0], "longer than") {
		t.Errorf("replies: %.200q", got)
	}
}

// TestStdioConnEndWaitsForAnswers: the end of the input ends the running
// commands and is handed on only once the calls read before it are answered.
func TestStdioConnEndWaitsForAnswers(t *testing.T) {
	inR, inW := io.Pipe()
	out := &output{}
	stopped := make(chan struct{})
	c := newStdioConn(inR, out, func() { close(stopped) }, nil)
	go func() {
		io.WriteString(inW, initLine+"\n"+`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`+"\n"+
			`{"jsonrpc":"2.0","id":"b","method":"tools/call"}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`+"\n")
		inW.Close()
	}()
	ended := make(chan []string, 1)
	go func() {
		msgs, err := readMessages(c)
		if err != nil {
			t.Errorf("read: %v", err)
		}
		ended <- msgs
	}()
	<-stopped
	for _, resp := range []string{`{"jsonrpc":"2.0","id":0,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, `{"jsonrpc":"2.0","id":"b","result":{}}`} {
		select {
		case <-ended:
			t.Fatalf("the end of the input was handed on before %s", resp)
		default:
		}
		if _, err := c.Write([]byte(resp + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	if msgs := <-ended; len(msgs) != 5 {
		t.Errorf("passed on %q", msgs)
	}
	if got := out.lines(); len(got) != 4 {
		t.Errorf("written: %q", got)
	}
}

// TestStdioConnEndWithBrokenOutput: when nothing reaches the client any
// more there is nothing to wait for.
func TestStdioConnEndWithBrokenOutput(t *testing.T) {
	out := &output{broken: true}
	var c *stdioConn
	c = newStdioConn(strings.NewReader(initLine+"\n"), out, func() {
		if _, err := c.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n")); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("write: %v", err)
		}
	}, nil)
	if msgs := readAll(t, c); len(msgs) != 1 {
		t.Errorf("passed on %q", msgs)
	}
}

// TestStdioConnCloseEndsTheWait: closing the connection (on SIGTERM) ends
// the wait for answers that will not come.
func TestStdioConnCloseEndsTheWait(t *testing.T) {
	var c *stdioConn
	c = newStdioConn(strings.NewReader(initLine+"\n"), &output{}, func() { c.Close() }, nil)
	if msgs := readAll(t, c); len(msgs) != 1 {
		t.Errorf("passed on %q", msgs)
	}
}

// BenchmarkStdioConnWrite measures writing a 1 MB answer to a pending call,
// which stdioConn decodes to learn which call it answers.
func BenchmarkStdioConnWrite(b *testing.B) {
	resp := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}]}}` + "\n")
	c := newStdioConn(strings.NewReader(""), io.Discard, nil, nil)
	id, _ := jsonrpc.MakeID(float64(1))
	b.SetBytes(int64(len(resp)))
	for b.Loop() {
		c.mu.Lock()
		c.pending[id] = struct{}{}
		c.mu.Unlock()
		if _, err := c.Write(resp); err != nil {
			b.Fatal(err)
		}
	}
	if len(c.pending) != 0 {
		b.Fatal("the answer was not noted")
	}
}

// FuzzAnsweredID: for every message the SDK can write, answeredID finds
// the call a response answers, and finds none in a request.
func FuzzAnsweredID(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":"a-1","error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`,
		`{"result":{},"jsonrpc":"2.0","id":5}`,
		`{"jsonrpc":"2.0","id":6}`,
		`[{"jsonrpc":"2.0","id":7,"result":{}}]`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
		`{"jsonrpc":"2.0","id":8,"result":`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var id jsonrpc.ID
		answeredID(p, &id) // any input: no panic
		m, err := jsonrpc.DecodeMessage(p)
		if err != nil {
			return
		}
		enc, err := jsonrpc.EncodeMessage(m) // what the SDK writes
		if err != nil {
			return
		}
		var got jsonrpc.ID
		ok := answeredID(enc, &got)
		switch m := m.(type) {
		case *jsonrpc.Response:
			if !ok || got != m.ID {
				t.Fatalf("%s: answers %v %v, want %v", enc, ok, got, m.ID)
			}
		case *jsonrpc.Request:
			if ok {
				t.Fatalf("%s: a request taken for an answer to %v", enc, got)
			}
		}
	})
}

// TestStdioConnLifecycle: a request before initialize, a second
// initialize and an initialize without the spec's params are refused with
// JSON-RPC's codes; pings and sessionless requests pass.
func TestStdioConnLifecycle(t *testing.T) {
	out := &output{}
	c := newStdioConn(strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":7,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		initLine,
		initLine,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
	}, "\n")+"\n"), out, nil, nil)
	msgs := readAll(t, c)
	var passed []string
	for _, m := range msgs {
		var r struct {
			ID any `json:"id"`
		}
		json.Unmarshal([]byte(m), &r)
		passed = append(passed, fmt.Sprint(r.ID))
	}
	if want := []string{"2", "3", "0", "5"}; !slices.Equal(passed, want) {
		t.Errorf("passed on %v, want %v", passed, want)
	}
	want := map[string]int64{"1": jsonrpc.CodeInvalidRequest, "4": jsonrpc.CodeInvalidParams, "0": jsonrpc.CodeInvalidRequest}
	for _, line := range out.lines() {
		var r struct {
			ID    any `json:"id"`
			Error struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprint(r.ID)
		if want[id] != r.Error.Code {
			t.Errorf("answer %s, want code %d", line, want[id])
		}
		delete(want, id)
	}
	if len(want) > 0 {
		t.Errorf("not answered: %v", want)
	}
}

// TestStdioConnCancelled: the answer to a call the client cancelled is not
// sent; other answers are, and the call no longer holds up the end.
func TestStdioConnCancelled(t *testing.T) {
	out := &output{}
	c := newStdioConn(strings.NewReader(initLine+"\n"+`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`+"\n"), out, nil, nil)
	readAll(t, c)
	for _, resp := range []string{`{"jsonrpc":"2.0","id":0,"result":{}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"cancelled"}}`} {
		if n, err := c.Write([]byte(resp + "\n")); err != nil || n != len(resp)+1 {
			t.Fatalf("write %s: %d %v", resp, n, err)
		}
	}
	if got := out.lines(); len(got) != 1 || !strings.Contains(got[0], `"id":0`) {
		t.Errorf("written: %q", got)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending)+len(c.cancelled) != 0 {
		t.Errorf("still tracked: %v %v", c.pending, c.cancelled)
	}
}

func TestFixErrorCode(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"boom"}}` + "\n":   `{"error":{"code":-32603,"message":"boom"},"id":1,"jsonrpc":"2.0"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}` + "\n": `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{"text":"\"code\":0"}}` + "\n":        `{"jsonrpc":"2.0","id":1,"result":{"text":"\"code\":0"}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{"error":{"code":0}}}` + "\n":         `{"jsonrpc":"2.0","id":1,"result":{"error":{"code":0}}}` + "\n",
	} {
		if got := string(fixErrorCode([]byte(in))); got != want {
			t.Errorf("fixErrorCode(%s) = %s, want %s", in, got, want)
		}
	}
}

func FuzzBadInitialize(f *testing.F) {
	for _, seed := range []string{`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`,
		`{"protocolVersion":1}`, `[]`, `null`, `"x"`, `{"capabilities":[],"clientInfo":{}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		why := badInitialize(params)
		var p struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
		}
		if why == "" && (json.Unmarshal(params, &p) != nil || p.ProtocolVersion == "") {
			t.Errorf("accepted %s", params)
		}
	})
}
