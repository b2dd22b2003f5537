package runner

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The watchdog ends a command's process group when the process that runs it
// dies without doing so itself (kill -9, a crash, the OOM killer). It is a
// small child of that process, this same program started again with
// watchdogEnv set, in a process group of its own so that a signal to the
// runner's group (the terminal's Ctrl+C, `timeout`, a job kill) does not
// reach it. It holds the read end of a pipe whose only write end the runner
// holds: the runner writes the group's id once the command has started, and
// kills the watchdog once the group has ended. End of input means the runner
// is gone, and the watchdog ends the group (SIGTERM, then SIGKILL after the
// grace period). The kernel closes a dead process's files however it
// died, so unlike a parent-death signal this does not depend on which thread
// started the child.
//
// A parent-death signal on the command itself covers the instant between
// its start and the runner telling the watchdog its group.
const (
	watchdogEnv   = "CUFF_RUNNER_WATCHDOG"
	watchdogGrace = "CUFF_RUNNER_WATCHDOG_GRACE_MS"
	// watchdogName is how ps shows a watchdog.
	watchdogName = "cuff-watchdog"
)

func init() {
	// Any program that links the runner can be its own watchdog: the check
	// runs before main, and a watchdog never gets there.
	if os.Getenv(watchdogEnv) == "1" {
		os.Exit(watchdogMain(os.NewFile(3, "control")))
	}
}

// watchdog is the runner's end of one command's watchdog.
type watchdog struct {
	cmd *exec.Cmd
	ctl *os.File
}

// startWatchdog starts a watchdog that will end the group it is told about
// with the given grace between SIGTERM and SIGKILL. It returns nil when one
// cannot be started; the command then runs without (as on other systems).
func startWatchdog(grace time.Duration) *watchdog {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:        "/proc/self/exe", // this program, even if its file was replaced meanwhile
		Args:        []string{watchdogName},
		Env:         []string{watchdogEnv + "=1", watchdogGrace + "=" + strconv.FormatInt(grace.Milliseconds(), 10)},
		Dir:         "/", // never keep a mount point busy
		ExtraFiles:  []*os.File{r},
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil
	}
	return &watchdog{cmd: cmd, ctl: w}
}

// watch tells the watchdog which group to end should this process die.
func (d *watchdog) watch(pgid int) {
	if d != nil {
		fmt.Fprintf(d.ctl, "%d\n", pgid)
	}
}

// release ends the watchdog once the group has ended (or is left running
// on purpose). It is killed rather than told, so that a short command does
// not wait for the watchdog to have started up; being this process's
// unreaped child, its pid cannot name another process meanwhile.
func (d *watchdog) release() {
	if d == nil {
		return
	}
	_ = d.cmd.Process.Kill()
	_ = d.cmd.Wait()
	_ = d.ctl.Close()
}

// watchdogMain is the watchdog process: it reads the group id, then waits
// for the end of its input and ends the group.
func watchdogMain(ctl *os.File) int {
	// The runner's signals are not for the watchdog; it ends when told to or
	// when the runner is gone.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	setProcessName(watchdogName)
	grace, _ := strconv.Atoi(os.Getenv(watchdogGrace))
	in := bufio.NewReader(ctl)
	line, err := in.ReadString('\n')
	pgid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil || pgid <= 1 {
		return 0 // the runner went before starting anything, or sent nonsense
	}
	_, _ = in.ReadString('\n') // nothing more is ever written: this returns when the runner is gone
	endGroupOfDeadRunner(pgid, time.Duration(grace)*time.Millisecond)
	return 0
}

// endGroupOfDeadRunner ends the group as a timeout would: SIGTERM (and
// SIGCONT for stopped members), then SIGKILL once the grace has passed.
func endGroupOfDeadRunner(pgid int, grace time.Duration) {
	signalGroup(pgid, syscall.SIGTERM)
	signalGroup(pgid, syscall.SIGCONT)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && groupAlive(pgid) {
		time.Sleep(pollInterval)
	}
	signalGroup(pgid, syscall.SIGKILL)
}

// childAttr puts the command in a process group of its own, and has the
// kernel kill it should the runner die before its watchdog knows the group.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// setProcessName sets the name ps and /proc/PID/comm show (at most 15 bytes).
func setProcessName(name string) {
	b := append([]byte(name), 0)
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
}

// startHeld starts the command that newCmd makes, and calls before with its
// pid while it is held at its first instruction: started traced, it stops
// when its program is loaded (ptrace's stop at exec), and runs once
// released. A set-user-ID or set-group-ID program, or one with file
// capabilities, is not traced (the kernel would run it without its
// privileges), nor is anything where tracing is not allowed (a seccomp
// profile, Yama's ptrace_scope 3): those are started running, before
// called at once.
func startHeld(newCmd func() *exec.Cmd, path string, before func(pid int)) (*exec.Cmd, error) {
	if !privileged(path) {
		// The tracer is the thread that starts the child: it must also be
		// the one that waits for the stop and releases it.
		runtime.LockOSThread()
		cmd := newCmd()
		cmd.SysProcAttr.Ptrace = true
		if err := cmd.Start(); err == nil {
			pid := cmd.Process.Pid
			sig, ok := waitExecStop(pid)
			before(pid)
			if ok {
				_, _, _ = syscall.RawSyscall6(syscall.SYS_PTRACE, syscall.PTRACE_DETACH, uintptr(pid), 0, uintptr(sig), 0, 0)
			}
			runtime.UnlockOSThread()
			return cmd, nil
		}
		runtime.UnlockOSThread()
	}
	cmd := newCmd()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	before(cmd.Process.Pid)
	return cmd, nil
}

// waitExecStop waits for a traced child's first stop and returns the signal
// to hand it on release: none for the stop at exec, the signal itself for
// one that arrived first. ok is false when the child did not stop (it died:
// its status is left for Wait).
func waitExecStop(pid int) (sig syscall.Signal, ok bool) {
	// Look first (WNOWAIT): a child that died instead keeps its status for
	// Wait.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WEXITED|unix.WNOWAIT|unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, false
		}
		break
	}
	if info.Code != cldTrapped && info.Code != cldStopped {
		return 0, false
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WALL|syscall.WUNTRACED, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if !ws.Stopped() {
		return 0, false
	}
	if s := ws.StopSignal(); s != syscall.SIGTRAP {
		return s, true
	}
	return 0, true
}

// si_code values of a stopped child (linux/signal.h).
const (
	cldStopped = 5 // CLD_STOPPED
	cldTrapped = 4 // CLD_TRAPPED
)

// privileged reports whether the program at path gains privileges when it
// is run: set-user-ID, set-group-ID or file capabilities.
func privileged(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return true // let exec say what is wrong, untraced
	}
	if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
		return true
	}
	n, err := unix.Getxattr(path, "security.capability", nil)
	return err == nil && n > 0
}
