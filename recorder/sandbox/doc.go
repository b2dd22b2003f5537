// Package sandbox confines the commands cuff lets an agent run: a Landlock
// ruleset (Linux) under which a command and every process it starts can read
// everywhere but write only the work tree, the temporary directory and the
// build caches a developer's tools need, and cannot open TCP connections or
// listen on TCP ports. Nothing a confined process does can lift the ruleset.
//
// A Policy says what is writable; Probe says what the kernel can enforce;
// Policy.Exec applies the ruleset to the calling process and replaces it with
// the command (Policy.Run keeps cuff as the parent, to report the command's
// last working directory to a shell). Denials reads a finished command's
// output for the permission errors that the sandbox caused, so that the
// recording can say which path or port it stopped.
//
// Other platforms have no sandbox yet: Probe says so, and Exec refuses to run
// anything unconfined.
package sandbox
