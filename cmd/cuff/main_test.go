package main

import (
	"bytes"
	"fmt"
	"github.com/cuff-dev/cuff/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cuffBin is the binary built once for the end-to-end tests.
var cuffBin string

func TestMain(m *testing.M) {
	runAttack()     // the test binary as the attacker inside a sandbox
	runMeasurer()   // the test binary as the measurer of a command's memory
	testenv.Scrub() // the tester's own cuff, Claude Code and Codex set-up stays out
	dir, err := os.MkdirTemp("", "cuff-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cuffBin = filepath.Join(dir, "cuff")
	// cuff-tui goes beside cuff, where cuff looks for it first.
	for _, b := range [][2]string{{cuffBin, "."}, {filepath.Join(dir, "cuff-tui"), "../cuff-tui"}} {
		build := exec.Command("go", "build", "-o", b[0], b[1])
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", b[1], err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary printed.
type result struct {
	stdout, stderr string
	code           int
}

// cuff runs the built binary in dir with the given stdin (may be empty),
// in a home of its own.
func cuff(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	home := t.TempDir()
	return cuffEnv(t, dir, stdin, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + testStateHome(t), "TZ=UTC", "NO_COLOR=1", "CUFF_DIR="}, args...)
}

// stateHomes holds one state directory per test, so that what one cuff
// run of a test keeps there (trust, approvals) the next run finds.
var stateHomes sync.Map // *testing.T -> string

// testStateHome is the test's state directory (XDG_STATE_HOME).
func testStateHome(t *testing.T) string {
	if d, ok := stateHomes.Load(t); ok {
		return d.(string)
	}
	d := t.TempDir()
	stateHomes.Store(t, d)
	t.Cleanup(func() { stateHomes.Delete(t) })
	return d
}

// trustProject runs cuff trust in dir, as the person who wrote its
// .cuff/settings.yml or policy.yml would.
func trustProject(t *testing.T, dir string) {
	t.Helper()
	if r := cuff(t, dir, "", "trust"); r.code != 0 {
		t.Fatalf("cuff trust: %+v", r)
	}
}

// cuffEnv runs the built binary in dir with the given stdin and the
// test's environment plus env.
func cuffEnv(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	r, _ := cuffProcess(t, dir, stdin, env, args...)
	return r
}

// cuffProcess is cuffEnv that also returns the process's state (its
// resource use).
func cuffProcess(t *testing.T, dir, stdin string, env []string, args ...string) (result, *os.ProcessState) {
	t.Helper()
	return programProcess(t, cuffBin, dir, stdin, env, args...)
}

// programProcess is cuffProcess for any program.
func programProcess(t *testing.T, program, dir, stdin string, env []string, args ...string) (result, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %v: %v", filepath.Base(program), args, err)
	}
	return result{out.String(), errOut.String(), code}, cmd.ProcessState
}

func TestVersion(t *testing.T) {
	r := cuff(t, t.TempDir(), "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "cuff ") {
		t.Errorf("version: %+v", r)
	}
	r = cuff(t, t.TempDir(), "", "version", "--format", "yaml")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unknown format "yaml"`) {
		t.Errorf("bad format: %+v", r)
	}
}

func TestCompletion(t *testing.T) {
	r := cuff(t, t.TempDir(), "", "completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "__start_cuff") {
		t.Errorf("completion: code %d, %d bytes", r.code, len(r.stdout))
	}
}

// TestArgumentErrorsAreUsageErrors: wrong arguments and unknown
// subcommands exit 2 with a hint, at every level.
func TestArgumentErrorsAreUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "missing the command to check"},
		{[]string{"record", "bogus"}, "cuff record has: clean, export"},
		{[]string{"runs", "bogus"}, `unknown command "bogus" for "cuff runs"`},
		{[]string{"hook", "uninstall", "claude"}, "cuff hook has: claude, install"},
		{[]string{"policy", "check", "a", "b"}, "Usage: cuff policy check [FILE]"},
		{[]string{"version", "extra"}, "Usage: cuff version"},
		{[]string{"bogus"}, "Run 'cuff --help'"},
	} {
		r := cuff(t, t.TempDir(), "", c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("cuff %v: exit %d, stderr %q; want exit %d and %q", c.args, r.code, r.stderr, exitUsage, c.want)
		}
	}
	if r := cuff(t, t.TempDir(), "", "record"); r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
		t.Errorf("a group without a subcommand shows its help: %+v", r)
	}
}
