package gate

import (
	"path"
	"testing"
)

// FuzzCleanPath holds cleanPath to path.Clean.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"/", "//", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/.git", "/..", "/.", "/a/.", "/a/..",
		"/a/.b", "/a/..b", "/a/b..", "a", "", "./a", "../a", "/x/y/z.go", "/.../a", "/a/...", "/a/.../"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := cleanPath(p), path.Clean(p); got != want {
			t.Errorf("cleanPath(%q) = %q, want %q", p, got, want)
		}
	})
}
