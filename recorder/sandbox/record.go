package sandbox

import (
	"strings"

	"github.com/cuff-dev/cuff/transcript"
)

// CodeDenied is the error code of a recorded run that failed because the
// sandbox stopped something it tried.
const CodeDenied = "SANDBOX_DENIED"

// Record marks a recorded run as confined and notes what the sandbox
// stopped. A run that failed, with no other error, and whose output shows a
// denial gets the CodeDenied error, which the TUI and the exports show.
func Record(run *transcript.BashRun, denials []Denial) {
	rep := &transcript.SandboxReport{Confined: true}
	var what []string
	for _, d := range denials {
		rep.Denied = append(rep.Denied, transcript.SandboxDenial{Op: d.Op, Path: d.Path, Addr: d.Addr, Line: d.Line})
		what = append(what, d.String())
	}
	run.Sandbox = rep
	if len(denials) > 0 && run.Error == nil && run.Failed() {
		run.Error = &transcript.RunError{Code: CodeDenied, Message: "the sandbox stopped: " + strings.Join(what, "; ")}
	}
}
