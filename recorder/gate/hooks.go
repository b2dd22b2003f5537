package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// hookBlockingExit is the exit status with which a hook denies, as in
// Claude Code's hook protocol; its stderr is the reason.
const hookBlockingExit = 2

// ToolRequest is what an extra before-tool-use hook receives on standard
// input.
type ToolRequest struct {
	Event     string          `json:"hook_event_name"`
	Tool      string          `json:"tool_name"`
	Input     json.RawMessage `json:"tool_input"`
	SessionID string          `json:"session_id,omitempty"`
	Cwd       string          `json:"cwd,omitempty"`
	Taint     []string        `json:"taint,omitempty"`
}

// HookOutcome is one hook's answer.
type HookOutcome struct {
	Hook    string  `json:"hook"`
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
}

// HookResult combines the answers of the extra hooks.
type HookResult struct {
	// Verdict is allow when no hook objected, ask when one asked or failed,
	// deny when one denied.
	Verdict Verdict       `json:"verdict"`
	Reason  string        `json:"reason,omitempty"`
	Hook    string        `json:"hook,omitempty"`
	Results []HookOutcome `json:"results"`
}

// RunHooks runs the configured extra hooks in order with req as JSON on
// standard input. The first deny wins and stops the rest. A hook answers
// with {"decision": "deny"|"ask"|"allow", "reason": "..."}, or {} for no
// objection, or exits with status 2 to deny with its stderr as the reason.
// A hook that fails or times out counts as ask. A hook cannot lower the
// built-in verdict: combine with Combine.
func (g *Gate) RunHooks(ctx context.Context, req ToolRequest) HookResult {
	res := HookResult{Verdict: VerdictAllow, Results: []HookOutcome{}}
	if len(g.hooks) == 0 {
		return res
	}
	if req.Event == "" {
		req.Event = "PreToolUse"
	}
	if req.Input == nil {
		req.Input = json.RawMessage("{}")
	}
	in, err := json.Marshal(req)
	if err != nil {
		res.Verdict, res.Reason = VerdictAsk, fmt.Sprintf("encode hook request: %v", err)
		return res
	}
	for _, h := range g.hooks {
		o := g.runHook(ctx, h, in)
		res.Results = append(res.Results, o)
		if o.Verdict > res.Verdict {
			res.Verdict, res.Reason, res.Hook = o.Verdict, o.Reason, h
		}
		if o.Verdict == VerdictDeny {
			break
		}
	}
	return res
}

func (g *Gate) runHook(ctx context.Context, hook string, in []byte) HookOutcome {
	o := HookOutcome{Hook: hook, Verdict: VerdictAllow}
	res, err := runHelper(ctx, hook, in, g.hookTimeout)
	switch {
	case err != nil:
		o.Verdict, o.Reason = VerdictAsk, "hook failed: "+err.Error()
	case res.code == hookBlockingExit:
		o.Verdict, o.Reason = VerdictDeny, tail(res.stderr)
		if o.Reason == "" {
			o.Reason = "denied by hook " + hook
		}
	case res.code != 0:
		o.Verdict, o.Reason = VerdictAsk, fmt.Sprintf("hook exited with status %d: %s", res.code, tail(res.stderr))
	default:
		o.Verdict, o.Reason = parseHookAnswer(res.stdout)
	}
	return o
}

// parseHookAnswer reads a hook's standard output. Empty output or {} is no
// objection; {"allowed": false} (seed 004's HookDecision) is a deny.
func parseHookAnswer(out []byte) (Verdict, string) {
	if len(bytes.TrimSpace(out)) == 0 {
		return VerdictAllow, ""
	}
	var raw struct {
		Decision string `json:"decision"`
		Allowed  *bool  `json:"allowed"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return VerdictAsk, fmt.Sprintf("hook answered %q, not JSON like {\"decision\": \"deny\", \"reason\": \"…\"}", tail(out))
	}
	switch raw.Decision {
	case "deny", "block":
		return VerdictDeny, raw.Reason
	case "ask":
		return VerdictAsk, raw.Reason
	case "", "allow", "approve":
		if raw.Allowed != nil && !*raw.Allowed {
			return VerdictDeny, raw.Reason
		}
		return VerdictAllow, raw.Reason
	}
	return VerdictAsk, fmt.Sprintf("hook answered unknown decision %q (expected allow, ask or deny)", raw.Decision)
}

// Combine merges the gate's verdict with the hooks': the more severe wins,
// so a hook can deny or ask but never lower what the built-in checks said.
func Combine(gate Verdict, hooks HookResult) Verdict {
	return max(gate, hooks.Verdict)
}
