package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/spf13/cobra"
)

// importBatch is how many events an import appends (and syncs) at a time.
const importBatch = 512

// importResult is what `cuff import --format json` prints.
type importResult struct {
	SessionID string `json:"session_id"`
	Events    int64  `json:"events"`
}

func (a *app) importCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Convert a Claude Code transcript or a Codex rollout into a cuff session",
		Long: `Import reads a Claude Code transcript (a session or a sub-agent's file), a Codex
rollout, a cuff session file or a cuff JSON export (record export --format json), told
apart by content, and writes it as a session of the project's store, secrets redacted.
It prints the session's id. Importing the same transcript again updates that session. The
session ends only when the file says it ended. Use - to read standard input.`,
		Example: `  cuff import ~/.claude/projects/-home-me-app/4d5611e5-241a-462a-8d15-5122611a9569.jsonl
  cuff import ~/.codex/sessions/2026/05/11/rollout-2026-05-11T13-28-45-<uuid>.jsonl --format json`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			in, opts, closeIn, err := a.openImport(args[0])
			if err != nil {
				return err
			}
			defer closeIn()
			s, err := a.openStore()
			if err != nil {
				return err
			}
			res, st, err := importTranscript(s, in, opts)
			if err != nil {
				return fmt.Errorf("import %s: %w", args[0], err)
			}
			if w := skippedWarning(args[0], st); w != "" {
				fmt.Fprintln(a.stderr, w)
			}
			if format == "json" {
				return report.JSON(a.stdout, res)
			}
			fmt.Fprintf(a.stderr, "Imported %s: %d events\n", st.Format, res.Events)
			fmt.Fprintln(a.stdout, res.SessionID)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json")
	return cmd
}

// openImport opens the file to import (- for standard input).
func (a *app) openImport(path string) (io.Reader, foreign.Options, func(), error) {
	if path == "-" {
		return a.stdin, foreign.Options{}, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, foreign.Options{}, nil, &usageError{msg: fmt.Sprintf("%s: no such file", path),
				hint: "Hint: Claude Code keeps transcripts in ~/.claude/projects, Codex in ~/.codex/sessions"}
		}
		return nil, foreign.Options{}, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, foreign.Options{}, nil, &usageError{msg: fmt.Sprintf("%s is a directory", path),
			hint: "Hint: Give one transcript file (.jsonl)"}
	}
	return f, foreign.Options{FallbackUUID: foreign.FallbackUUID(path), Path: path}, func() { f.Close() }, nil
}

// importTranscript decodes a transcript into a session of the store: its
// session_start opens the session, the other events are appended in
// batches with their times, agent ids and call ids. A transcript imported
// before (known by its own session id, such as claude:<uuid>) replaces the
// session it became, so that importing it again updates that session. The
// session ends only when the transcript says it ended, with the status it
// gives; otherwise it is left open (idle, or interrupted when commands
// never finished), dated by its last event.
func importTranscript(s *session.Store, r io.Reader, opts foreign.Options) (importResult, foreign.Stats, error) {
	var (
		w      *session.Writer
		res    importResult
		batch  []*transcript.Event
		source string // the transcript's own id, which a later import finds it by
		status string // the status the transcript ended with; "" when it did not end
		last   time.Time
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := w.Append(batch...); err != nil {
			return err
		}
		res.Events += int64(len(batch))
		batch = batch[:0]
		return nil
	}
	st, err := decodeImport(r, opts, func(ev *transcript.Event) error {
		if ev.TS.After(last) {
			last = ev.TS
		}
		if w == nil {
			start, ok := ev.Body.(*transcript.SessionStart)
			if !ok {
				start = &transcript.SessionStart{Source: transcript.SourceImport}
			}
			ts := ev.TS
			if ts.IsZero() {
				ts = time.Now()
			}
			source = importSource(ev.SessionID)
			var err error
			if id, ok := s.ImportedAs(source); ok && source != "" {
				w, err = s.Replace(id, start, ts)
			} else {
				w, err = s.Create(start, ts)
			}
			if err != nil {
				return err
			}
			res.SessionID, res.Events = w.ID(), 1
			if ok {
				return nil
			}
		}
		switch b := ev.Body.(type) {
		case *transcript.SessionStart:
			return nil // a second start (a cuff session appended to): the session has one
		case *transcript.SessionEnd:
			status = b.Status
			if status == "" {
				status = transcript.StatusComplete
			}
			return nil
		}
		batch = append(batch, ev)
		if len(batch) >= importBatch {
			return flush()
		}
		return nil
	})
	if w == nil {
		return res, st, err
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		w.Abandon() // a session imported before stays as it was; a new one stays open, as far as it got
		return res, st, fmt.Errorf("import stopped after %d events: %w", res.Events, err)
	}
	if status != "" {
		err = w.CloseAt(status, last)
		res.Events++ // the session_end
	} else {
		err = w.Finish(last)
	}
	if err != nil {
		return res, st, err
	}
	if source != "" {
		if err := s.NoteImport(source, res.SessionID); err != nil {
			return res, st, fmt.Errorf("remember the import: %w", err)
		}
	}
	return res, st, nil
}

// importSource is the id an import is remembered by: the transcript's own
// session id, unless it is only a placeholder.
func importSource(id string) string {
	if id == "" || strings.HasSuffix(id, ":unknown") {
		return ""
	}
	return id
}

// decodeImport passes the events of an import's input to fn: a JSON array
// of cuff events (what record export --format json writes), else any
// transcript foreign.DecodeWith tells apart by content.
func decodeImport(r io.Reader, opts foreign.Options, fn func(*transcript.Event) error) (foreign.Stats, error) {
	br := bufio.NewReader(r)
	for {
		b, err := br.Peek(1)
		if err != nil || !unicode.IsSpace(rune(b[0])) {
			break
		}
		br.ReadByte() //nolint:errcheck // the byte was just peeked
	}
	if b, err := br.Peek(1); err == nil && b[0] == '[' {
		as, err := transcript.DecodeArray(br, fn)
		st := foreign.Stats{Format: foreign.FormatNative}
		st.Events, st.Malformed = as.Events, as.Malformed
		return st, err
	}
	return foreign.DecodeWith(br, opts, fn)
}

// skippedWarning says what an import passed over, "" when nothing.
func skippedWarning(path string, st foreign.Stats) string {
	var parts []string
	if st.Unknown > 0 {
		names := make([]string, 0, len(st.UnknownTypes))
		for name := range st.UnknownTypes {
			names = append(names, name)
		}
		sort.Strings(names)
		parts = append(parts, fmt.Sprintf("%s of unknown types (%s)", report.Plural(int64(st.Unknown), "line"), strings.Join(names, ", ")))
	}
	if st.Malformed > 0 {
		what := report.Plural(int64(st.Malformed), "malformed line")
		if len(st.MalformedLines) > 0 {
			nums := make([]string, len(st.MalformedLines))
			for i, n := range st.MalformedLines {
				nums[i] = strconv.Itoa(n)
			}
			what += " (line " + strings.Join(nums, ", ")
			if st.Malformed > len(st.MalformedLines) {
				what += ", …"
			}
			what += ")"
		}
		parts = append(parts, what)
	}
	if st.Truncated > 0 {
		parts = append(parts, "an incomplete last line")
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: %s: skipped %s", path, strings.Join(parts, ", "))
}
