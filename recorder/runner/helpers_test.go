package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// run runs c with a background context.
func run(t *testing.T, c Command) Result {
	t.Helper()
	return Run(context.Background(), c)
}

// wantCode fails the test unless res.Err carries code.
func wantCode(t *testing.T, res Result, code Code) {
	t.Helper()
	if res.Err == nil {
		t.Fatalf("want error %s, got none (result %+v)", code, res)
	}
	if res.Err.Code != code {
		t.Fatalf("want error %s, got %s: %s", code, res.Err.Code, res.Err.Message)
	}
	if res.Err.Message == "" || res.Err.Hint == "" && code != CodeProcessFailed {
		t.Fatalf("error %s lacks message or hint: %+v", code, res.Err)
	}
}

// wantNoError fails the test if the run reported an error.
func wantNoError(t *testing.T, res Result) {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("unexpected error: %v (hint: %s)", res.Err, res.Err.Hint)
	}
}

// wantGroupGone asserts that no process, zombies included, is left in the group.
func wantGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("command was not started (pgid %d)", pgid)
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process group %d still has members after Run returned (kill -0: %v)", pgid, err)
	}
}

// writeFile creates a file with the given mode inside dir and returns its path.
func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// envOf parses the output of env(1) into a map.
func envOf(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// watchWriter is a live writer that records output and signals when a word appears.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	word string
	seen chan struct{}
	once sync.Once
}

func newWatchWriter(word string) *watchWriter {
	return &watchWriter{word: word, seen: make(chan struct{})}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.word) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// failWriter fails every write.
type failWriter struct{}

var errWriteFailed = errors.New("write failed")

func (failWriter) Write([]byte) (int, error) { return 0, errWriteFailed }
