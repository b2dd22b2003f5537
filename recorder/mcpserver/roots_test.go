package mcpserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStoreFromRoots checks that without --dir the store is found from the
// client's first root that is a directory, under both protocol eras: asked
// with roots/list (2025-11-25) and inside the call (2026-07-28).
func TestStoreFromRoots(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			p := newProject(t, "")
			elsewhere := newProject(t, "") // the working directory: must not be used
			ts := serve(t, p, func(o *Options) { o.Dir, o.WorkDir = "", elsewhere.root }, nil, version,
				filepath.Join(p.root, "missing"), p.root)
			out, msg := runOnce(t, ts, "pwd")
			if out.Stdout != p.root+"\n" || out.SessionID == nil {
				t.Fatalf("pwd = %q (%s), want %s", out.Stdout, msg, p.root)
			}
			if _, ok := events(t, p.dir)[*out.SessionID]; !ok {
				t.Errorf("not recorded in the root's store")
			}
			if len(events(t, elsewhere.dir)) != 0 {
				t.Errorf("recorded in the working directory's store")
			}
		})
	}
}

func TestStoreFromWorkDirWithoutRoots(t *testing.T) {
	p := newProject(t, "")
	noRoots := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	ts := serve(t, p, func(o *Options) { o.Dir = "" }, noRoots, "")
	if out, msg := runOnce(t, ts, "pwd"); out.Stdout != p.root+"\n" {
		t.Errorf("pwd = %q (%s)", out.Stdout, msg)
	}
}

func TestFirstDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := &mcp.ListRootsResult{Roots: []*mcp.Root{nil, {URI: "https://example.com/x"}, {URI: "file://relative"},
		{URI: "file://" + file}, {URI: "file://" + dir + "/"}}}
	if got := firstDir(res); got != dir {
		t.Errorf("firstDir = %q, want %q", got, dir)
	}
	if got := firstDir(nil); got != "" {
		t.Errorf("firstDir(nil) = %q", got)
	}
}
