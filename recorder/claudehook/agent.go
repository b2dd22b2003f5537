package claudehook

import (
	"context"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// agentPoll bounds how long a wait on the agent's process blocks before it
// looks at ctx again (and, without pidfd, how often it looks at the process).
const agentPoll = 250 * time.Millisecond

// agentProcess is the agent that runs this hook: the parent process, or,
// when the parent is the shell Claude Code runs hook commands with, that
// shell's parent. 0 when it cannot be told.
func agentProcess() int {
	pid := os.Getppid()
	for range 3 {
		if pid <= 1 || !isShell(comm(pid)) {
			break
		}
		pid = parentOf(pid)
	}
	if pid <= 1 {
		return 0
	}
	return pid
}

// agentRecorder names the agent as the recorder of a command it runs: its
// PostToolUse records the end, so a command whose agent is gone (killed,
// crashed) and that has no end died with it; one whose agent still runs is
// still running, however long it takes (see session.RecorderGone).
func agentRecorder() *transcript.RecorderProcess { return session.ProcessOf(agentProcess()) }

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ash", "busybox":
		return true
	}
	return false
}

// comm is a process's command name, "" when it cannot be read.
func comm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// parentOf is a process's parent, 0 when it cannot be read.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// whileAgentRuns returns a context that ends when the agent process pid
// ends (Claude Code was killed or crashed while the hook waits for a
// person), so that the wait is withdrawn rather than left for someone to
// answer later. Call stop when done with it. pid 0 watches nothing.
func whileAgentRuns(ctx context.Context, pid int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if pid <= 0 {
		return ctx, cancel
	}
	exited, closeExit, ok := processExit(pid)
	go func() {
		if ok {
			defer closeExit()
		}
		for ctx.Err() == nil {
			if ok {
				if exited(agentPoll) { // woken by the process's end, or after agentPoll
					cancel()
					return
				}
				continue
			}
			if unix.Kill(pid, 0) == unix.ESRCH { // no way to be told: look now and then
				cancel()
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(agentPoll):
			}
		}
	}()
	return ctx, cancel
}
