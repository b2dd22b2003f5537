package gate

import (
	"fmt"
	"strings"
)

// Verdict is what the gate answers for a command. The order of the values
// is their severity: a command's verdict is the most severe of its parts.
type Verdict uint8

// Verdicts, least severe first.
const (
	// VerdictAllow lets the command run without asking.
	VerdictAllow Verdict = iota
	// VerdictNone makes no decision: the agent's own permission flow applies.
	VerdictNone
	// VerdictAsk holds the command until a person approves it.
	VerdictAsk
	// VerdictDeny refuses the command.
	VerdictDeny
)

func (v Verdict) String() string {
	switch v {
	case VerdictAllow:
		return "allow"
	case VerdictNone:
		return "none"
	case VerdictAsk:
		return "ask"
	case VerdictDeny:
		return "deny"
	}
	return fmt.Sprintf("verdict(%d)", v)
}

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads a verdict name.
func (v *Verdict) UnmarshalText(b []byte) error {
	for x := VerdictAllow; x <= VerdictDeny; x++ {
		if string(b) == x.String() {
			*v = x
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q: expected allow, none, ask or deny", b)
}

// Tier says why a simple command got its verdict. The order of the values is
// their rank: the tier of a command with several concerns is the highest.
type Tier uint8

// Tiers, lowest rank first.
const (
	// TierLocal is a command that provably stays on this machine.
	TierLocal Tier = iota
	// TierAllowRule is a command allowed by a policy rule.
	TierAllowRule
	// TierGrey is a command the gate knows nothing conclusive about.
	TierGrey
	// TierRisky is a command that can reach the network, run arbitrary code,
	// hide what it runs, or destroy data outside the workspace.
	TierRisky
	// TierAskRule is a command a policy rule says to ask about.
	TierAskRule
	// TierUnparsed is a command that could not be parsed; it is always asked.
	TierUnparsed
	// TierDenyRule is a command a policy rule denies.
	TierDenyRule
)

func (t Tier) String() string {
	switch t {
	case TierLocal:
		return "local"
	case TierAllowRule:
		return "allow_rule"
	case TierGrey:
		return "grey"
	case TierRisky:
		return "risky"
	case TierAskRule:
		return "ask_rule"
	case TierUnparsed:
		return "unparsed"
	case TierDenyRule:
		return "deny_rule"
	}
	return fmt.Sprintf("tier(%d)", t)
}

// MarshalText writes the tier's name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a tier name.
func (t *Tier) UnmarshalText(b []byte) error {
	for x := TierLocal; x <= TierDenyRule; x++ {
		if string(b) == x.String() {
			*t = x
			return nil
		}
	}
	return fmt.Errorf("unknown tier %q: expected local, allow_rule, grey, risky, ask_rule, unparsed or deny_rule", b)
}

// Mode selects the verdict table.
type Mode string

// Gate modes.
const (
	// ModeStrict asks about risky commands whatever the taint. The default.
	ModeStrict Mode = "strict"
	// ModeTaint lets an untainted agent run anything not denied by a rule and
	// sends a tainted agent's risky and unknown commands to the cop.
	ModeTaint Mode = "taint"
)

// ParseMode reads a mode name; the empty string is strict.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeStrict:
		return ModeStrict, nil
	case ModeTaint:
		return ModeTaint, nil
	}
	return "", fmt.Errorf("unknown gate mode %q: expected strict or taint", s)
}

// Taint is the set of taint flags of an agent session.
type Taint uint8

// Taint flags.
const (
	// TaintUntrusted: the agent has read untrusted input (web pages, issues).
	TaintUntrusted Taint = 1 << iota
	// TaintSecret: the agent has read secrets (.env files, keys).
	TaintSecret
)

// ParseTaint reads a comma-separated list of taint flags such as
// "untrusted,secret". The empty string is no taint.
func ParseTaint(s string) (Taint, error) {
	var t Taint
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "":
		case "untrusted":
			t |= TaintUntrusted
		case "secret":
			t |= TaintSecret
		default:
			return 0, fmt.Errorf("unknown taint %q: expected untrusted, secret or both separated by a comma", strings.TrimSpace(f))
		}
	}
	return t, nil
}

// Strings lists the flags by name.
func (t Taint) Strings() []string {
	out := []string{}
	if t&TaintUntrusted != 0 {
		out = append(out, "untrusted")
	}
	if t&TaintSecret != 0 {
		out = append(out, "secret")
	}
	return out
}

func (t Taint) String() string { return strings.Join(t.Strings(), ",") }

// both reports whether the agent carries both taints.
func (t Taint) both() bool { return t&TaintUntrusted != 0 && t&TaintSecret != 0 }

// copNeed says how a part's verdict depends on the cop.
type copNeed uint8

const (
	copNone    copNeed = iota // the verdict is final
	copRisky                  // risky and singly tainted: flagged → deny, else ask
	copGreyOne                // grey and singly tainted: flagged → deny, else allow
	copGreyTwo                // grey and doubly tainted: flagged → ask, else allow
)

// decide applies the verdict table to one tier. When the verdict depends on
// the cop, it returns the verdict to use without one (ask) and the kind of
// question to put to it.
func decide(t Tier, mode Mode, taint Taint) (Verdict, copNeed) {
	switch t {
	case TierDenyRule:
		return VerdictDeny, copNone
	case TierAskRule, TierUnparsed:
		return VerdictAsk, copNone
	case TierLocal, TierAllowRule:
		return VerdictAllow, copNone
	}
	if mode != ModeTaint {
		if t == TierRisky {
			return VerdictAsk, copNone
		}
		return VerdictNone, copNone
	}
	switch {
	case taint == 0:
		return VerdictAllow, copNone
	case t == TierRisky && taint.both():
		return VerdictAsk, copNone
	case t == TierRisky:
		return VerdictAsk, copRisky
	case taint.both():
		return VerdictAsk, copGreyTwo
	default:
		return VerdictAsk, copGreyOne
	}
}

// afterCop is the verdict of a part once the cop has answered.
func afterCop(need copNeed, flagged bool) Verdict {
	switch need {
	case copRisky:
		if flagged {
			return VerdictDeny
		}
		return VerdictAsk
	case copGreyOne:
		if flagged {
			return VerdictDeny
		}
		return VerdictAllow
	case copGreyTwo:
		if flagged {
			return VerdictAsk
		}
		return VerdictAllow
	}
	return VerdictAsk
}
