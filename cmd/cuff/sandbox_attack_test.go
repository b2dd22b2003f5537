//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/recorder/sandbox"
	"golang.org/x/sys/unix"
)

// Attacks that need more than a shell run as this test binary, inside the
// sandbox: the test starts it with attackEnv naming the attack.
const attackEnv = "CUFF_TEST_ATTACK"

// runAttack runs the attack named in attackEnv and exits; TestMain calls it
// first, so the test binary doubles as the attacker.
func runAttack() {
	name := os.Getenv(attackEnv)
	if name == "" {
		return
	}
	switch name {
	case "trace-cuff":
		traceCuff()
	case "sockets":
		makeSockets()
	default:
		fmt.Fprintf(os.Stderr, "unknown attack %q\n", name)
		os.Exit(2)
	}
	os.Exit(0)
}

// traceCuff tries to reach into the cuff process that started the
// sandboxed shell: trace each of its threads, write its memory, open its
// memory file. It prints "tried cuff PID (N threads)" and, for each way in
// that worked, a line starting with REACHED.
func traceCuff() {
	runtime.LockOSThread() // ptrace ties a tracee to the tracing thread
	want := os.Getenv("CUFF_TEST_CUFF")
	pid := os.Getppid()
	for ; pid > 1; pid = parentOf(pid) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == want {
			break
		}
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.TrimSpace(string(comm)) == filepath.Base(want) {
			break // a non-dumpable process hides its exe link, not its name
		}
	}
	if pid <= 1 {
		fmt.Println("no cuff among the ancestors")
		return
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		fmt.Println("cannot list cuff's threads:", err)
		return
	}
	fmt.Printf("tried cuff %d (%d threads)\n", pid, len(tasks))
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		if err := unix.PtraceSeize(tid); err == nil {
			fmt.Printf("REACHED: traced thread %d\n", tid)
		}
		// Address 8 is never mapped: EFAULT means the kernel let us in.
		var b [1]byte
		_, err := unix.ProcessVMWritev(tid, []unix.Iovec{{Base: &b[0], Len: 1}}, []unix.RemoteIovec{{Base: 8, Len: 1}}, 0)
		if err != unix.EPERM && err != unix.EACCES && err != unix.ESRCH {
			fmt.Printf("REACHED: process_vm_writev into thread %d: %v\n", tid, err)
		}
		if f, err := os.Open(fmt.Sprintf("/proc/%d/task/%d/mem", pid, tid)); err == nil {
			f.Close()
			fmt.Printf("REACHED: opened the memory of thread %d\n", tid)
		}
	}
}

// makeSockets tries the sockets that reach past the machine without a TCP
// connect or bind, which is all Landlock confines: a TCP socket that
// listens without being bound (the kernel binds it to a free port, open
// to anyone), and the families Landlock does not know. It prints one line
// per socket: its name and the error, or what it got.
func makeSockets() {
	try := func(name string, family, typ, proto int, then func(fd int) string) {
		fd, err := unix.Socket(family, typ, proto)
		if err != nil {
			fmt.Printf("%s: %v\n", name, err)
			return
		}
		defer unix.Close(fd)
		fmt.Printf("%s: MADE %s\n", name, then(fd))
	}
	listen := func(fd int) string {
		if err := unix.Listen(fd, 1); err != nil {
			return "but listen: " + err.Error()
		}
		sa, _ := unix.Getsockname(fd)
		if in, ok := sa.(*unix.SockaddrInet4); ok {
			return fmt.Sprintf("and listening on port %d", in.Port)
		}
		return "and listening"
	}
	none := func(int) string { return "" }
	try("tcp listen", unix.AF_INET, unix.SOCK_STREAM, 0, listen)
	try("tcp6 listen", unix.AF_INET6, unix.SOCK_STREAM, 0, listen)
	try("smc", unix.AF_SMC, unix.SOCK_STREAM, 0, none)
	try("vsock", unix.AF_VSOCK, unix.SOCK_STREAM, 0, none)
	try("rds", unix.AF_RDS, unix.SOCK_SEQPACKET, 0, none)
	try("tipc", unix.AF_TIPC, unix.SOCK_RDM, 0, none)
}

// parentOf reads a process's parent from /proc (0 when it cannot).
func parentOf(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// TestSandboxedShellCannotReachIntoCuff: cuff sandbox --shell stays the
// parent of the confined shell, and its confined thread shares the
// shell's Landlock domain, under which tracing is allowed. Through that
// thread a child could write the memory of the whole cuff process, whose
// other threads are not confined: the way out of the sandbox. No thread of
// cuff may be traced, written or read from inside.
func TestSandboxedShellCannotReachIntoCuff(t *testing.T) {
	e := newSandboxEnv(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(e.env, attackEnv+"=trace-cuff", "CUFF_TEST_CUFF="+cuffBin)
	r := cuffEnv(t, e.proj, "", env, "sandbox", "--shell", sandbox.Quote(self))
	if r.code != 0 || !strings.Contains(r.stdout, "tried cuff") {
		t.Fatalf("the attack did not find cuff: %+v", r)
	}
	if strings.Contains(r.stdout, "REACHED") {
		t.Errorf("a sandboxed command reached into cuff:\n%s", r.stdout)
	}
}

// TestSandboxMakesNoInternetOrForeignSocket: with the network closed, a
// TCP socket that listens without a bind (which Landlock does not see: the
// kernel picks the port) and the socket families that reach past the
// machine outside TCP/IP (AF_VSOCK to a virtual machine's host, SMC, RDS,
// TIPC) all fail with a permission error; with --net they are the
// kernel's to refuse or not.
func TestSandboxMakesNoInternetOrForeignSocket(t *testing.T) {
	e := newSandboxEnv(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(e.env, attackEnv+"=sockets")
	r := cuffEnv(t, e.proj, "", env, "sandbox", "--", self)
	if r.code != 0 {
		t.Fatalf("the attack did not run: %+v", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 6 {
		t.Fatalf("want 6 sockets tried, got:\n%s", r.stdout)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, ": permission denied") {
			t.Errorf("not refused by the sandbox: %s", l)
		}
	}
	r = cuffEnv(t, e.proj, "", env, "sandbox", "--net", "--", self)
	if !strings.Contains(r.stdout, "tcp listen: MADE and listening on port") {
		t.Errorf("--net: %+v", r)
	}
}
