package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// tuiBinary is the program that draws the terminal UI. It is a separate
// binary so that the commands agents run thousands of times (cuff exec,
// cuff hook claude) do not pay the start-up cost of the UI's markdown and
// syntax-highlighting libraries (about 28 ms per process).
const tuiBinary = "cuff-tui"

// modulePath is cuff's Go module, for building the UI from a checkout.
const modulePath = "github.com/cuff-dev/cuff"

// launchTUI replaces this process with cuff-tui running args.
func (a *app) launchTUI(args []string) error {
	path, err := a.findTUI()
	if err != nil {
		return err
	}
	argv := append([]string{path}, args...)
	if err := syscall.Exec(path, argv, a.environ); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	return nil // not reached
}

// findTUI locates cuff-tui: $CUFF_TUI, beside this binary, on PATH, or, in
// a checkout of cuff (go run ./cmd/cuff demo), built into the user cache.
func (a *app) findTUI() (string, error) {
	if p := a.getenv("CUFF_TUI"); p != "" {
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		for _, dir := range []string{filepath.Dir(self), filepath.Dir(resolved(self))} {
			if p := filepath.Join(dir, tuiBinary); isExecutable(p) {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(tuiBinary); err == nil {
		return p, nil
	}
	root, ok := moduleRoot()
	if !ok {
		return "", &usageError{msg: "the terminal UI (cuff-tui) is not installed",
			hint: "Hint: go install " + modulePath + "/cmd/... (installs cuff and cuff-tui side by side)"}
	}
	return a.buildTUI(root)
}

// buildTUI builds cuff-tui from the checkout at root into the user cache.
// Go's build cache makes every build after the first one quick.
func (a *app) buildTUI(root string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "cuff", tuiBinary)
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return "", err
	}
	fmt.Fprintln(a.stderr, "cuff: building the terminal UI from this checkout (the first time takes a minute)…")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/"+tuiBinary)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = a.stderr, a.stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", tuiBinary, err)
	}
	return out, nil
}

// moduleRoot finds a checkout of cuff at or above the working directory.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if isModule(filepath.Join(dir, "go.mod")) {
			if _, err := os.Stat(filepath.Join(dir, "cmd", tuiBinary)); err == nil {
				return dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// isModule reports whether the go.mod file at path declares cuff's module.
func isModule(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == modulePath
		}
	}
	return false
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
