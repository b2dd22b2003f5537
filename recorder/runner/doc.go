// Package runner is cuff's process runner: it validates a command, starts it in its own
// process group, captures stdout and stderr into bounded head-and-tail buffers while
// optionally streaming them live, enforces the timeout by ending the whole group
// (SIGTERM, then SIGKILL), forwards interrupts, applies resource limits and reports
// exit status, resource usage and structured errors.
//
// Commands run with argv by default; shell mode is opt-in. No process of a run's group
// outlives the run unless asked: on Linux the calling process becomes a child
// subreaper so that orphans of ended groups can be reaped rather than left as zombies,
// and a small watchdog process (this same program started again; see
// watchdog_linux.go) ends the group should the calling process die without doing so
// (kill -9, a crash): a program that links this package runs as that watchdog, before
// its main, when started with CUFF_RUNNER_WATCHDOG=1.
//
// The child runs in a background process group, so it must not read from the
// controlling terminal: give it Stdin nil (/dev/null), a file or a pipe.
package runner
