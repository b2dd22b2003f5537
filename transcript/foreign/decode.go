package foreign

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/claude"
	"github.com/cuff-dev/cuff/transcript/codex"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// Stats counts what Decode passed over, and says which format it read.
type Stats struct {
	Format Format
	stream.Stats
}

// Options configures Decode.
type Options struct {
	// FallbackUUID names a foreign session whose records carry no session
	// id, e.g. the uuid in the file's name.
	FallbackUUID string
	// Path is the transcript's file, when it is one: a Claude Code
	// session's sub-agents wrote files beside it, read in when the
	// session is (see claude.Options.Path).
	Path string
	// Brief reads a foreign transcript for counting only: long texts come
	// out cut, every count and figure exact (see claude.Options.Brief).
	Brief bool
}

// UnknownFormatError is the error for input that is none of the formats.
type UnknownFormatError struct {
	Empty bool // the input had no bytes at all
}

func (e *UnknownFormatError) Error() string {
	if e.Empty {
		return "the transcript is empty"
	}
	return "not a Claude Code transcript, a Codex rollout or a cuff session"
}

// Hint says which files are understood.
func (e *UnknownFormatError) Hint() string {
	return "Hint: Give a Claude Code transcript (~/.claude/projects/<project>/<session>.jsonl, or a\n" +
		"sub-agent's agent-<id>.jsonl), a Codex rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)\n" +
		"or a cuff session (.cuff/recordings/sessions/<id>.jsonl)"
}

// Decode reads a transcript of any known format from r, told from its
// content, and passes its events to fn in order. Foreign transcripts are
// numbered 1..N under the session id claude:<uuid> or codex:<uuid>; a cuff
// session's events pass as they are, unknown kinds included (kept raw).
// Unknown record types and malformed lines are counted, never fatal; the
// error is that of r or fn, or *UnknownFormatError.
func Decode(r io.Reader, fn func(*transcript.Event) error) (Stats, error) {
	return DecodeWith(r, Options{}, fn)
}

// DecodeWith is Decode with options.
func DecodeWith(r io.Reader, opts Options, fn func(*transcript.Event) error) (Stats, error) {
	br := bufio.NewReaderSize(r, HeadSize)
	head, err := br.Peek(HeadSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Stats{}, fmt.Errorf("read transcript: %w", err)
	}
	st := Stats{Format: Detect(head)}
	switch st.Format {
	case FormatClaude:
		st.Stats, err = stream.Run(br, claude.NewDecoder(claude.Options{FallbackUUID: opts.FallbackUUID, Path: opts.Path, Brief: opts.Brief}), fn)
	case FormatCodex:
		st.Stats, err = stream.Run(br, codex.NewDecoder(codex.Options{FallbackUUID: opts.FallbackUUID, Brief: opts.Brief}), fn)
	case FormatNative:
		err = decodeNative(br, &st.Stats, fn)
	default:
		return st, &UnknownFormatError{Empty: len(head) == 0}
	}
	return st, err
}

// decodeNative passes a cuff session's events on as they are read.
func decodeNative(r io.Reader, st *stream.Stats, fn func(*transcript.Event) error) error {
	rd := transcript.NewReader(r)
	defer func() {
		rs := rd.Stats()
		st.Lines, st.Truncated = rs.Lines, rs.Truncated
	}()
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var le *transcript.LineError
		if errors.As(err, &le) {
			st.AddMalformed(le.Line)
			continue
		}
		if err != nil {
			return fmt.Errorf("read transcript: %w", err)
		}
		if ev.Body == nil {
			st.AddUnknown(string(ev.Type))
		}
		st.Events++
		if err := fn(ev); err != nil {
			return err
		}
	}
}

// uuidPattern finds a uuid in a file name.
var uuidPattern = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// FallbackUUID is the uuid a transcript's file name carries (Claude Code's
// <uuid>.jsonl, Codex's rollout-<time>-<uuid>.jsonl), or "".
func FallbackUUID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	all := uuidPattern.FindAllString(name, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1]
}

// FallbackID names the session of a transcript file whose records carry no
// session id: the uuid its name carries, else its name without the
// extension (letters, digits, '.', '_' and '-' only), else "".
func FallbackID(path string) string {
	if uuid := FallbackUUID(path); uuid != "" {
		return uuid
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return -1
	}, name)
}

// DecodeFile decodes the transcript at path, with the uuid of its name as
// the fallback session id.
func DecodeFile(path string, fn func(*transcript.Event) error) (Stats, error) {
	f, err := transcript.Open(path)
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	return DecodeWith(f, Options{FallbackUUID: FallbackUUID(path), Path: path}, fn)
}
