package sandbox

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// ShellWrap rewrites an agent's shell command line so that it runs inside
// this policy through the cuff program at cuffPath, as the calling shell
// (bash or zsh) would have run it, keeping what the agent relies on:
//
//   - cuff sandbox --shell runs the line with eval in a shell of its own,
//     inside the sandbox, with the caller's stdin, stdout and stderr;
//   - its exit status is the line's, and the rewrite ends with it;
//   - the working directory the line ends in is handed back on a file
//     descriptor of its own (never the command's), and the calling shell
//     cd's there, so that a cd in the line moves the agent's next command
//     too, as before.
//
// The shell's own functions and aliases (Claude Code's shell snapshot) are
// not defined inside: the line runs as a script would. Outside, the steps
// of the rewrite run in the calling shell, where they are defined: so the
// rewrite uses only builtins, quoted against aliases (\builtin cd, with -q
// in zsh, which would run its chpwd hooks), and case rather than [, so
// that no function of the user's shell (an autoenv or rvm cd that reads
// the files of the directory it enters) runs outside the sandbox on a
// directory the agent chose.
func (o Options) ShellWrap(cuffPath, command string) string {
	args := append([]string{cuffPath, "sandbox"}, o.Args()...)
	args = append(args, "--cwd-fd", "3", "--shell", command)
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = Quote(a)
	}
	return wrapStart + strings.Join(words, " ") + ` 3>&1 >&4 4>&-); __cuff_rc=$?; ` +
		`case $__cuff_cd in /*) \builtin cd ${ZSH_VERSION+-q} -- "$__cuff_cd";; esac; (\builtin exit $__cuff_rc); ` + wrapEnd
}

// Quote quotes a word for bash and zsh: the shell reads it back as it is.
// A NUL byte, which no shell can take, is dropped.
func Quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		q, _ = syntax.Quote(strings.ReplaceAll(s, "\x00", ""), syntax.LangBash)
	}
	return q
}

// wrapStart and wrapEnd are how every ShellWrap rewrite begins and ends.
const (
	wrapStart = "{ __cuff_cd=$("
	wrapEnd   = "} 4>&1"
)

// Unwrap gives back the command line that ShellWrap rewrote, and whether
// command is such a rewrite (an agent reports the command it ran, which is
// the rewrite; the recording shows what the agent asked for).
func Unwrap(command string) (string, bool) {
	if !strings.HasPrefix(command, wrapStart) || !strings.HasSuffix(command, wrapEnd) {
		return "", false
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return "", false
	}
	var line string
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || found || len(call.Args) < 2 || call.Args[1].Lit() != "sandbox" {
			return !found
		}
		for i, w := range call.Args[:len(call.Args)-1] {
			if w.Lit() == "--shell" {
				if v, err := expand.Literal(nil, call.Args[i+1]); err == nil {
					line, found = v, true
				}
				break
			}
		}
		return !found
	})
	return line, found
}
