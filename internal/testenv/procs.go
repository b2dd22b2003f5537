package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// LiveGroupMembers lists the processes of group pgid that are still running,
// read from /proc (Linux). Zombies count as gone: an init that does not reap
// them, as in some containers, keeps them in their group.
func LiveGroupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ...": comm may hold anything, so
		// the fields are split after its last ')'.
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitGroupGone waits until no process of group pgid is running. The
// 30-second limit only guards against a hang: past it, what is left is
// killed and the test fails, naming why (what should have ended the group).
func WaitGroupGone(t testing.TB, pgid int, why string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		live := LiveGroupMembers(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("%s: process group %d is still running: %v", why, pgid, live)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
