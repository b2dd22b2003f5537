// Package gate is cuff's command classifier and policy engine: it decides
// whether a shell command an agent wants to run may run, needs a person's
// approval, or is refused.
//
// A command line is parsed with mvdan.cc/sh/v3/syntax and every simple
// command in it is classified on its own: the parts of pipelines and lists,
// subshells, command and process substitutions, function bodies, the
// scripts of sh -c, eval and here-documents fed to a shell, and the commands
// that wrappers run (env, timeout, nice, sudo, xargs, find -exec, ...).
// Quoting is removed before names are looked up, so c"u"rl, \curl and
// $'\x63url' are all curl; a command name only known at run time ($X,
// $(...)) is indirection.
//
// Each simple command gets a Tier:
//
//   - deny_rule, ask_rule, allow_rule: a policy rule decided it. Project
//     rules (.cuff/policy.yml) come first and decide alone; the built-in
//     rules only lift a command the analysis knows nothing bad about.
//   - local: provably stays on this machine (ls, cat, grep, sed without e
//     or w, find without -exec, rm inside the workspace ...).
//   - risky: reaches the network, runs arbitrary code (interpreters, sed e,
//     awk system(), git -c, go test -exec ...), hides what it runs, or
//     destroys data outside the workspace.
//   - grey: nothing conclusive is known.
//   - unparsed: not valid shell; always asked about.
//
// Check turns tiers into a Verdict with the verdict table of the configured
// Mode (strict or taint) and the agent's Taint, asking the optional cop
// where the table says so. The verdict of a command line is the most
// severe of its parts, so wrapping a command never lowers its verdict.
// RunHooks runs the extra before-tool-use hooks from the settings.
//
// Code the agent may have written is the one thing the classifier cannot
// judge: a test runner, a build tool, a package script, ./x or a git
// commit with hooks runs files in the work tree that an earlier allowed
// write may have changed. The analysis marks such commands
// (Command.AgentCode, Result.AgentCode), and Decide allows them only when
// the caller says the command runs in cuff's sandbox (Input.Sandboxed);
// outside it they get no decision, so the agent's own permission flow
// applies. Check and Classify assume no sandbox.
package gate
