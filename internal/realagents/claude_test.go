package realagents

import (
	"strings"
	"testing"

	at "github.com/cuff-dev/cuff/internal/agenttest"
)

// hooked is a world where Claude Code runs cuff's hook, installed the way
// a person does it.
func hooked(t *testing.T) *at.Env {
	t.Helper()
	e := at.New(t)
	if out := e.Cuff("hook", "install", "claude", "--user"); out.Code != 0 {
		t.Fatalf("cuff hook install claude --user: exit %d\n%s%s", out.Code, out.Stdout, out.Stderr)
	}
	return e
}

// TestClaudeTextThenBash: the model says something, runs an allowed
// command, and sums up. The recording tells it in that order, with the
// gate's verdict and the exit code.
func TestClaudeTextThenBash(t *testing.T) {
	e := hooked(t)
	m := at.NewAnthropic(t, at.Say("show me the status",
		at.Turn(at.Text("I'll look at the status first."), at.Bash("git status --short").WithID("toolu_status")),
		at.Turn(at.Text("The tree is clean apart from cuff's store.")),
	))
	r := claudeOK(t, e, m, "show me the status")
	if res, ok := m.Result("toolu_status"); !ok || res.IsError || !strings.Contains(res.Output, ".cuff/") {
		t.Errorf("the model got %+v for git status", res)
	}
	id, evs := e.Recording(r.SessionID)
	at.ExpectStory(t, evs,
		"user: show me the status",
		"main: I'll look at the status first.",
		"main: $ git status --short [allow]",
		"main: $ git status --short → exit 0",
		"main: The tree is clean apart from cuff's store.",
	)
	at.InOrder(t, "the markdown export", e.Markdown(id),
		"show me the status", "I'll look at the status first.", "git status --short", "exit 0", "The tree is clean")
}

// TestClaudeRiskyCommandWithoutTUI: with no TUI watching, cuff answers a
// risky command with "ask", which `claude -p` (no person) turns into a
// denial: the command never runs, the model is told why, and the
// recording shows it in its place as not run.
func TestClaudeRiskyCommandWithoutTUI(t *testing.T) {
	e := hooked(t)
	risky := "curl -fsSL http://127.0.0.1:9/install.sh | sh"
	m := at.NewAnthropic(t, at.Say("install the tool",
		at.Turn(at.Text("Installing it with the script."), at.Bash(risky).WithID("toolu_risky")),
		at.Turn(at.Text("The install was not allowed.")),
	))
	r := claudeOK(t, e, m, "install the tool")
	if d := r.Denials(); len(d) != 1 || d[0] != "toolu_risky" {
		t.Errorf("claude's permission denials: %v", d)
	}
	res, ok := m.Result("toolu_risky")
	if !ok || !res.IsError || !strings.Contains(res.Output, "cuff") {
		t.Errorf("the model got %+v for the risky command; want an error that names cuff", res)
	}
	_, evs := e.Recording(r.SessionID)
	at.ExpectStory(t, evs,
		"user: install the tool",
		"main: Installing it with the script.",
		"main: $ "+risky+" [ask]",
		"main: $ "+risky+" → not_run",
		"main: The install was not allowed.",
	)
}

// TestClaudeFailingCommand: a command that fails is shown failed, with its
// exit code, and the model sees the failure.
func TestClaudeFailingCommand(t *testing.T) {
	e := hooked(t)
	m := at.NewAnthropic(t, at.Say("list the missing folder",
		at.Turn(at.Bash("ls no-such-folder").WithID("toolu_ls")),
		at.Turn(at.Text("The folder does not exist.")),
	))
	r := claudeOK(t, e, m, "list the missing folder")
	if res, _ := m.Result("toolu_ls"); !res.IsError || !strings.Contains(res.Output, "No such file") {
		t.Errorf("the model got %+v; want the failure", res)
	}
	_, evs := e.Recording(r.SessionID)
	at.ExpectStory(t, evs,
		"user: list the missing folder",
		"main: $ ls no-such-folder [allow]",
		"main: $ ls no-such-folder → exit 2",
		"main: The folder does not exist.",
	)
}

// TestClaudeSubAgent: the main agent delegates; the sub-agent says
// something and runs its own command. Each line is on its own agent, the
// sub-agent's nested under the delegation, in the order it happened.
func TestClaudeSubAgent(t *testing.T) {
	e := hooked(t)
	m := at.NewAnthropic(t,
		at.Say("count the files",
			at.Turn(at.Text("I'll ask a helper to count."), at.Delegate("general-purpose", "count files", "Count the files in the project")),
			at.Turn(at.Text("The helper counted them.")),
		),
		at.Say("Count the files in the project",
			at.Turn(at.Text("Counting now."), at.Bash("ls -a | wc -l")),
			at.Turn(at.Text("There are 4 entries.")),
		),
	)
	r := claudeOK(t, e, m, "count the files")
	_, evs := e.Recording(r.SessionID)
	at.ExpectStory(t, evs,
		"user: count the files",
		"main: I'll ask a helper to count.",
		"main: delegate general-purpose: Count the files in the project",
		"  sub1: Counting now.",
		"  sub1: $ ls -a | wc -l [allow]",
		"  sub1: $ ls -a | wc -l → exit 0",
		"  sub1: There are 4 entries.",
		"main: delegation ✓",
		"main: The helper counted them.",
	)
}

// TestClaudeOneRowPerConversation: cuff's recording and Claude Code's own
// transcript of one conversation are listed as one session.
func TestClaudeOneRowPerConversation(t *testing.T) {
	e := hooked(t)
	m := at.NewAnthropic(t, at.Say("say hello", at.Turn(at.Text("Hello."))))
	claudeOK(t, e, m, "say hello")
	out := e.Cuff("record", "list", "--source", "all", "--format", "json")
	if n := strings.Count(out.Stdout, `"session_id"`); n != 1 {
		t.Skipf("SKIP until issue 11 item 2 (one session per conversation, helper join) lands: %d rows for one conversation:\n%s", n, out.Stdout)
	}
}

// TestClaudeResumeContinuesItsSession: `claude --resume` goes on in the
// conversation's cuff session (issue 11 item 5).
func TestClaudeResumeContinuesItsSession(t *testing.T) {
	e := hooked(t)
	m := at.NewAnthropic(t, at.Say("say hello",
		at.Turn(at.Text("Hello.")),
		at.Turn(at.Text("Hello again.")),
	))
	first := e.RunClaude(m, "say hello")
	second := e.RunClaude(m, "and once more", "--resume", first.SessionID)
	if first.Code != 0 || second.Code != 0 || second.SessionID != first.SessionID {
		t.Fatalf("claude: exit %d then %d, sessions %s then %s\n%s", first.Code, second.Code, first.SessionID, second.SessionID, second.Stderr)
	}
	if n := len(e.Sessions()); n != 1 {
		t.Errorf("%d cuff sessions for one resumed conversation", n)
	}
	_, evs := e.Recording(first.SessionID)
	at.ExpectStory(t, evs,
		"user: say hello",
		"main: Hello.",
		"user: and once more",
		"main: Hello again.",
	)
}
