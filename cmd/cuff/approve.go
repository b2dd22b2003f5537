package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/internal/workspace"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/spf13/cobra"
)

// Column widths of `cuff approvals`.
const (
	approvalCommandWidth = 60
	approvalDirWidth     = 28
)

// approvalCommands answer gated commands from a shell: approvals, approve,
// deny.
func (a *app) approvalCommands() []*cobra.Command {
	return []*cobra.Command{a.approvalsCommand(), a.approveCommand(), a.denyCommand()}
}

// broker opens the approval broker over the user state directory.
func (a *app) broker() (*approval.Broker, error) {
	dir := a.stateDir()
	if dir == "" {
		return nil, &usageError{msg: "no state directory for approvals", hint: "Hint: Set CUFF_STATE_DIR or HOME"}
	}
	b := approval.New(dir)
	b.Warn = func(msg string) { fmt.Fprintf(a.stderr, "warning: %s\n", msg) }
	b.OpenStore = a.approvalStore
	return b, nil
}

// approvalStore opens the store of the session a request names, with that
// project's redaction, so that a decision is recorded as the project's own
// events are.
func (a *app) approvalStore(ref approval.SessionRef) (*session.Store, error) {
	warn := func(msg string) { fmt.Fprintf(a.stderr, "warning: %s\n", msg) }
	if ref.Dir == "" {
		s := session.Open(ref.Dir)
		s.Recordings, s.Warn = ref.Recordings, warn
		return s, nil
	}
	ws, err := workspace.Open(workspace.Env{Dir: ref.Dir, Cwd: ref.Dir, Getenv: a.getenv, Warn: warn})
	if err != nil {
		return nil, err
	}
	if ref.Recordings != "" {
		ws.Store.Recordings = ref.Recordings
	}
	return ws.Store, nil
}

// approvalRow is a pending request in `cuff approvals --format json`.
type approvalRow struct {
	RequestID        string             `json:"request_id"`
	Command          string             `json:"command"`
	Tool             string             `json:"tool"`
	Agent            string             `json:"agent"`
	WorkingDirectory string             `json:"working_directory"`
	SessionID        string             `json:"session_id"`
	Verdict          transcript.Verdict `json:"verdict"`
	Taint            []string           `json:"taint"`
	CreatedAt        time.Time          `json:"created_at"`
	ExpiresAt        time.Time          `json:"expires_at"`
}

func (a *app) approvalsCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List the gated commands waiting for an answer, from every project",
		Example: `  cuff approvals
  cuff approvals --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, "table", "json"); err != nil {
				return err
			}
			b, err := a.broker()
			if err != nil {
				return err
			}
			pending, err := b.Pending()
			if err != nil {
				return err
			}
			if format == "json" {
				rows := make([]approvalRow, 0, len(pending))
				for _, r := range pending {
					rows = append(rows, approvalRow{RequestID: r.ID, Command: r.Command, Tool: r.Tool, Agent: r.Agent,
						WorkingDirectory: r.WorkingDirectory, SessionID: r.Session.ID, Verdict: r.Verdict,
						Taint: nonNil(r.Taint), CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt})
				}
				return report.JSON(a.stdout, rows)
			}
			if len(pending) == 0 {
				fmt.Fprintln(a.stderr, "No commands are waiting for approval.")
				return nil
			}
			a.approvalTable(pending)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json")
	return cmd
}

// approvalTable prints pending requests as an aligned table.
func (a *app) approvalTable(pending []*approval.Request) {
	st := report.DefaultStyles()
	header := fmt.Sprintf("%-12s  %-9s  %-12s  %-*s  %s", "ID", "Expires", "Agent", approvalDirWidth, "Directory", "Command")
	fmt.Fprintln(a.stdout, st.Bold.Render(header))
	now := time.Now()
	for _, r := range pending {
		agent := r.Agent
		if agent == "" {
			agent = "-"
		}
		dir := r.WorkingDirectory
		if dir == "" {
			dir = "-"
		} else if len([]rune(dir)) > approvalDirWidth {
			dir = "…" + string([]rune(dir)[len([]rune(dir))-approvalDirWidth+1:])
		}
		what := r.Command
		if what == "" {
			what = r.Tool
		}
		left := "in " + report.Duration(r.ExpiresAt.Sub(now).Round(time.Second))
		fmt.Fprintf(a.stdout, "%-12s  %-9s  %-12s  %-*s  %s\n", approval.Short(r.ID), left, oneLine(agent, 12),
			approvalDirWidth, dir, oneLine(what, approvalCommandWidth))
	}
	fmt.Fprintf(a.stderr, "\nAnswer with 'cuff approve ID' or 'cuff deny ID --reason ...' (at least %d characters of the id).\n",
		approval.MinPrefix)
}

func (a *app) approveCommand() *cobra.Command {
	var forSession, always bool
	cmd := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve a gated command: once, for the rest of the agent's session, or always",
		Long: `Approve a gated command that an agent is waiting to run. ID is the request id
from 'cuff approvals', or at least 6 of its first characters.

  --session  also approves the same command for the rest of that agent session
  --always   adds an exact allow rule for the command to the project's .cuff/policy.yml`,
		Example: `  cuff approve 3f9a1c
  cuff approve 3f9a1c --session
  cuff approve 3f9a1c --always`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if forSession && always {
				return &usageError{msg: "--session and --always cannot be used together",
					hint: "Hint: --always covers every session; choose one"}
			}
			scope := transcript.ScopeOnce
			switch {
			case forSession:
				scope = transcript.ScopeSession
			case always:
				scope = transcript.ScopeAlways
			}
			r, d, err := a.decide(args[0], approval.Approve(scope, approval.ByCLI))
			if d == nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Approved %s (%s): %s\n", approval.Short(r.ID), d.Scope, oneLine(r.Command, approvalCommandWidth))
			switch {
			case d.RuleAdded != "":
				fmt.Fprintf(a.stdout, "Added rule: %s\n", d.RuleAdded)
			case d.Scope == transcript.ScopeAlways:
				fmt.Fprintf(a.stdout, "No rule added: %s already allows it\n", filepath.Join(r.Session.Dir, approval.PolicyFile))
			case d.Scope == transcript.ScopeSession:
				fmt.Fprintf(a.stdout, "The same command runs without asking for the rest of agent session %s\n", r.AgentSession)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&forSession, "session", false, "approve the same command for the rest of the agent session")
	cmd.Flags().BoolVar(&always, "always", false, "always allow the exact command: adds a rule to the project's .cuff/policy.yml")
	return cmd
}

func (a *app) denyCommand() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "deny ID",
		Short: "Deny a gated command; the reason goes back to the agent",
		Example: `  cuff deny 3f9a1c
  cuff deny 3f9a1c --reason "use the staging API, not production"`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, d, err := a.decide(args[0], approval.Deny(reason, approval.ByCLI))
			if d == nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Denied %s: %s\n", approval.Short(r.ID), oneLine(r.Command, approvalCommandWidth))
			return err
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, for the agent")
	return cmd
}

// decide answers the request named by id (or a prefix). A decision that
// stands but could not be fully recorded or applied is returned with a
// warning printed; the error is then nil unless the scope failed.
func (a *app) decide(id string, ans approval.Answer) (*approval.Request, *approval.Decision, error) {
	b, err := a.broker()
	if err != nil {
		return nil, nil, err
	}
	r, err := b.Resolve(id)
	if err != nil {
		var bad *approval.BadIDError
		if errors.As(err, &bad) {
			return nil, nil, &usageError{msg: bad.Error(), hint: bad.Hint()}
		}
		if d := decidedEarlier(b, id); d != nil {
			return nil, nil, &approval.AlreadyDecidedError{Decision: d}
		}
		return nil, nil, err
	}
	d, err := b.Decide(r.ID, ans)
	var rec *approval.RecordError
	if d != nil && errors.As(err, &rec) {
		fmt.Fprintf(a.stderr, "warning: the decision stands but was not recorded: %v\n", rec)
		err = nil
	}
	return r, d, err
}

// decidedEarlier finds the decision on a full id whose request file is
// already gone.
func decidedEarlier(b *approval.Broker, id string) *approval.Decision {
	if !approval.ValidID(id) {
		return nil
	}
	return b.Decision(id)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
