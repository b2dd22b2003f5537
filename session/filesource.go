package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
)

// FileSourceName is the Name of a FileSource.
const FileSourceName = "file"

// FileSource is one transcript file given by path — a cuff session, a
// Claude Code transcript or a Codex rollout, told from its content — as a
// Source, so that `cuff watch FILE` follows any of them the same way.
type FileSource struct {
	path string
	id   string
}

var _ Source = (*FileSource)(nil)

// NewFileSource reads the head of the file at path to name its session.
func NewFileSource(path string) (*FileSource, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	// A link the user names is followed here, once: from then on the file
	// is read by its real name, and must be a regular file.
	named := abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	f := &FileSource{path: abs, id: strings.TrimSuffix(filepath.Base(abs), ".jsonl")}
	file, err := transcript.Open(abs)
	var nr *transcript.NotRegularError
	if errors.As(err, &nr) && abs != named {
		nr.Path = fmt.Sprintf("%s (a link to %s)", named, abs)
	}
	if err != nil {
		return nil, err // it names the file and what is wrong with it
	}
	defer file.Close()
	head := make([]byte, headBytes)
	n, _ := io.ReadFull(file, head)
	_, _ = foreign.DecodeWith(strings.NewReader(string(head[:n])), foreign.Options{FallbackUUID: foreign.FallbackUUID(abs)},
		func(ev *transcript.Event) error {
			if ev.SessionID != "" {
				f.id = ev.SessionID
			}
			return errStop
		})
	return f, nil
}

// Format is the transcript format of the file.
func (f *FileSource) Format() foreign.Format {
	file, err := transcript.Open(f.path)
	if err != nil {
		return foreign.FormatUnknown
	}
	defer file.Close()
	head := make([]byte, headBytes)
	n, _ := io.ReadFull(file, head)
	return foreign.Detect(head[:n])
}

// Name implements Source.
func (f *FileSource) Name() string { return FileSourceName }

// Info describes the file's session for a listing.
func (f *FileSource) Info() Info {
	in := Info{ID: f.id, Source: FileSourceName, Path: f.path, Status: transcript.StatusActive,
		Events: Unknown, Turns: Unknown, ToolCalls: Unknown, Commands: Unknown, Failures: Unknown,
		TimedOut: Unknown, ToolErrors: Unknown, Background: Unknown}
	if fi, err := os.Stat(f.path); err == nil {
		in.SizeBytes, in.Updated = fi.Size(), fi.ModTime()
	}
	return in
}

// List implements Source: the one session.
func (f *FileSource) List(context.Context) ([]Info, error) { return []Info{f.Info()}, nil }

// Read implements Source.
func (f *FileSource) Read(ctx context.Context, id string, fn func(*transcript.Event) error) error {
	if id != f.id {
		return &NotFoundError{ID: id}
	}
	_, err := foreign.DecodeFile(f.path, func(ev *transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(ev)
	})
	return err
}

// Follow implements Source.
func (f *FileSource) Follow(ctx context.Context, id string, fn func(FollowItem)) error {
	if id != f.id {
		return &NotFoundError{ID: id}
	}
	return FollowFile(ctx, f.path, fn)
}
