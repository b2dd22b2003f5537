package export

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cuff-dev/cuff/recorder/gate"
)

// ReplayCounts counts the gate's verdicts over recorded runs.
type ReplayCounts struct {
	Allow int64 `json:"allow"`
	Ask   int64 `json:"ask"`
	Deny  int64 `json:"deny"`
	// None counts runs the gate makes no decision about (strict mode,
	// unknown commands): the agent's own permission prompt decides them.
	None int64 `json:"no_decision"`
}

func (c *ReplayCounts) add(v gate.Verdict, n int64) {
	switch v {
	case gate.VerdictAllow:
		c.Allow += n
	case gate.VerdictAsk:
		c.Ask += n
	case gate.VerdictDeny:
		c.Deny += n
	default:
		c.None += n
	}
}

// ReplayCommand is one recorded command and what the gate answers for it.
type ReplayCommand struct {
	Command string `json:"command"`
	Runs    int64  `json:"runs"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

// ReplayReport is what replaying recorded commands through the gate found,
// with the proposed policy and with the project's current one.
type ReplayReport struct {
	Sessions int          `json:"sessions"`
	Runs     int64        `json:"runs"`
	Distinct int          `json:"distinct_commands"`
	Proposed ReplayCounts `json:"proposed"`
	Current  ReplayCounts `json:"current"`
	// Changed lists the commands the proposed policy decides differently
	// from the current one; NotAllowed those it still would not allow
	// without asking. Most runs first.
	Changed    []ReplayCommand `json:"changed"`
	NotAllowed []ReplayCommand `json:"not_allowed"`
}

// ReplayOptions configures Replay.
type ReplayOptions struct {
	// Gate is the gate's configuration (mode, workspace, home); its Policy
	// is replaced by the proposed and the current policy in turn.
	Gate gate.Options
	// Current is the project's policy as it is; nil means none.
	Current *gate.Policy
}

// Replay runs every recorded command through the gate, in the working
// directory it ran in, once with the proposed policy and once with the
// current one, as an agent without taint would meet it. Each command line
// is checked as a whole, so a chain is allowed only when every part is.
func Replay(ctx context.Context, rec *Recorded, proposed *gate.Policy, opts ReplayOptions) (*ReplayReport, error) {
	gates := map[string][2]*gate.Gate{}
	gatesFor := func(dir string) ([2]*gate.Gate, error) {
		if g, ok := gates[dir]; ok {
			return g, nil
		}
		var pair [2]*gate.Gate
		for i, pol := range []*gate.Policy{proposed, opts.Current} {
			o := opts.Gate
			o.Policy, o.Cop, o.CopCommand, o.Hooks, o.Dir = pol, nil, "", nil, dir
			g, err := gate.New(o)
			if err != nil {
				return pair, fmt.Errorf("gate: %w", err)
			}
			pair[i] = g
		}
		gates[dir] = pair
		return pair, nil
	}
	rep := &ReplayReport{Sessions: rec.Sessions(), Runs: rec.Runs(), Distinct: rec.Distinct(), Changed: []ReplayCommand{}, NotAllowed: []ReplayCommand{}}
	for _, c := range rec.sorted() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		dirs := make([]string, 0, len(c.dirs))
		for d := range c.dirs {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		var worstNew, worstCur gate.Result
		for i, d := range dirs {
			g, err := gatesFor(d)
			if err != nil {
				return nil, err
			}
			n := c.dirs[d]
			pr := g[0].Check(ctx, c.command, 0)
			cr := g[1].Check(ctx, c.command, 0)
			rep.Proposed.add(pr.Verdict, n)
			rep.Current.add(cr.Verdict, n)
			if i == 0 || pr.Verdict > worstNew.Verdict {
				worstNew = pr
			}
			if i == 0 || cr.Verdict > worstCur.Verdict {
				worstCur = cr
			}
		}
		if len(dirs) == 0 {
			continue
		}
		line := ReplayCommand{Command: c.command, Runs: c.count, Verdict: worstNew.Verdict.String(), Reason: strings.Join(worstNew.Reasons, "; ")}
		if worstNew.Verdict != worstCur.Verdict {
			ch := line
			ch.Verdict = worstCur.Verdict.String() + " → " + worstNew.Verdict.String()
			rep.Changed = append(rep.Changed, ch)
		}
		if worstNew.Verdict != gate.VerdictAllow {
			rep.NotAllowed = append(rep.NotAllowed, line)
		}
	}
	return rep, nil
}

// WriteText writes the report for a person.
func (r *ReplayReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Replayed %s (%s) of %s through the gate.\n\n", plural(int(r.Runs), "run"),
		plural(r.Distinct, "distinct command"), plural(r.Sessions, "session"))
	fmt.Fprintf(&b, "%-22s %10s %10s\n", "", "current", "proposed")
	row := func(label string, cur, prop int64) {
		fmt.Fprintf(&b, "%-22s %10s %10s\n", label, GroupDigits(cur), GroupDigits(prop))
	}
	row("allowed", r.Current.Allow, r.Proposed.Allow)
	row("asked", r.Current.Ask, r.Proposed.Ask)
	row("denied", r.Current.Deny, r.Proposed.Deny)
	row("no decision (agent's)", r.Current.None, r.Proposed.None)
	list := func(title string, cmds []ReplayCommand) {
		if len(cmds) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for i, c := range cmds {
			if i == maxListed {
				fmt.Fprintf(&b, "  … and %d more\n", len(cmds)-maxListed)
				break
			}
			fmt.Fprintf(&b, "  %-8s %s (%s)\n", c.Verdict, oneLine(c.Command, headingCommandLength), times(c.Runs))
		}
	}
	list("Decided differently with the proposed policy", r.Changed)
	list("Still not allowed without asking", r.NotAllowed)
	_, err := io.WriteString(w, b.String())
	return err
}
