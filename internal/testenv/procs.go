package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Proc is a process as /proc/PID/stat describes it.
type Proc struct {
	PID, PPID, PGID int
	State           string // R, S, Z, ...
	Comm            string
}

// Running reports whether the process runs: a zombie is dead (an init that
// does not reap, as in some containers, keeps it around).
func (p Proc) Running() bool { return p.State != "Z" && p.State != "X" }

// Procs lists the processes of the machine, read from /proc (Linux).
func Procs() []Proc {
	entries, _ := os.ReadDir("/proc")
	var out []Proc
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
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		f := strings.Fields(s[close+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		out = append(out, Proc{PID: pid, PPID: ppid, PGID: pgid, State: f[0], Comm: s[open+1 : close]})
	}
	return out
}

// LiveGroupMembers lists the processes of group pgid that are still running.
func LiveGroupMembers(pgid int) []int {
	var pids []int
	for _, p := range Procs() {
		if p.PGID == pgid && p.Running() {
			pids = append(pids, p.PID)
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

// FillDisk writes a file in dir until the file system is full.
func FillDisk(t testing.TB, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	for { // the last pages a smaller write still fits in
		if _, err := f.Write(buf[:1]); err != nil {
			return
		}
	}
}
