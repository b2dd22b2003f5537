package scripts

import (
	"os"
	"path/filepath"
	"testing"
)

// tree writes files under a new temporary directory: path → content. A
// mode of 0o755 is used for content starting with "#!", 0o644 otherwise.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		write(t, dir, p, content)
	}
	return dir
}

func write(t testing.TB, dir, p, content string) string {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	mode := os.FileMode(0o644)
	if len(content) > 1 && content[:2] == "#!" {
		mode = 0o755
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(full, mode); err != nil { // umask-proof
		t.Fatal(err)
	}
	return full
}

func mustLoad(t testing.TB, cfg Config) *Set {
	t.Helper()
	s, err := Load(cfg)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

func names(s *Set) []string {
	var out []string
	for _, sc := range s.Scripts {
		out = append(out, sc.Name)
	}
	return out
}

// kindOf is the Kind of a scripts error, "" for nil or another error.
func kindOf(err error) Kind {
	if e, ok := err.(*Error); ok {
		return e.Kind
	}
	return ""
}
