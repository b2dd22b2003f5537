package claudehook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/claude"
)

// maxTranscriptRead bounds what one hook call reads of the transcript, so a
// hook never stalls the agent on a huge backlog.
const maxTranscriptRead = 16 << 20

// assistantTurns reads the complete lines of the Claude Code transcript at
// path from offset on and returns the main agent's assistant text and
// thinking as chat turns, with the offset just past the last complete line.
// A transcript that shrank is read from its start.
func assistantTurns(path string, offset int64) ([]*transcript.Event, int64, error) {
	if path == "" {
		return nil, offset, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, offset, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, offset, err
	}
	if fi.Size() < offset {
		offset = 0
	}
	n := min(fi.Size()-offset, maxTranscriptRead)
	if n <= 0 {
		return nil, offset, nil
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, offset, err
	}
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		if n == maxTranscriptRead { // one line longer than the bound: skip it
			return nil, offset + n, nil
		}
		return nil, offset, nil
	}
	buf = buf[:end+1]
	var turns []*transcript.Event
	d := claude.NewDecoder(claude.Options{})
	collect := func(ev *transcript.Event) error {
		t, ok := ev.Body.(*transcript.ChatTurn)
		if ok && t.Role == transcript.RoleAssistant && t.Text != "" && ev.AgentID == transcript.MainAgent {
			turns = append(turns, ev)
		}
		return nil
	}
	for _, line := range bytes.Split(buf[:len(buf)-1], []byte{'\n'}) {
		_ = d.Line(line, collect)
	}
	_ = d.Close(collect)
	return turns, offset + int64(len(buf)), nil
}

// transcriptSize is how long the transcript is now (0 when it is not there).
func transcriptSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
