package agenttest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// CodexRun is a finished `codex exec --json` run.
type CodexRun struct {
	Output
	// ThreadID is Codex's session (thread) id.
	ThreadID string
	// Events are the --json event lines, decoded.
	Events []map[string]any
	env    *Env
}

// MCPServer is an MCP server for Codex's config.toml.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	// Env is passed to the server: Codex gives MCP servers only a few
	// variables of its own environment.
	Env map[string]string
	// Approved are tools Codex may call without asking (approval_mode =
	// "approve"): codex exec has no one to ask, and refuses the others
	// unless the sandbox is off.
	Approved []string
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// CodexConfig writes Codex's config.toml: the mock as its model provider,
// analytics and update checks off, the project trusted, and the MCP
// servers given.
func (e *Env) CodexConfig(m *Responses, servers ...MCPServer) {
	e.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "model = \"gpt-e2e-mock\"\nmodel_provider = \"e2e\"\ncheck_for_update_on_startup = false\n\n")
	fmt.Fprintf(&b, "[model_providers.e2e]\nname = \"e2e mock\"\nbase_url = %s\nwire_api = \"responses\"\nenv_key = \"E2E_MOCK_KEY\"\n\n",
		tomlString(m.URL()+"/v1"))
	fmt.Fprintf(&b, "[analytics]\nenabled = false\n\n[projects.%s]\ntrust_level = \"trusted\"\n\n", tomlString(e.Project))
	for _, s := range servers {
		var args []string
		for _, a := range s.Args {
			args = append(args, tomlString(a))
		}
		fmt.Fprintf(&b, "[mcp_servers.%s]\ncommand = %s\nargs = [%s]\n", s.Name, tomlString(s.Command), strings.Join(args, ", "))
		if len(s.Env) > 0 {
			var kv []string
			for k, v := range s.Env {
				kv = append(kv, fmt.Sprintf("%s = %s", k, tomlString(v)))
			}
			fmt.Fprintf(&b, "env = { %s }\n", strings.Join(kv, ", "))
		}
		for _, tool := range s.Approved {
			fmt.Fprintf(&b, "\n[mcp_servers.%s.tools.%s]\napproval_mode = \"approve\"\n", s.Name, tomlString(tool))
		}
		b.WriteString("\n")
	}
	e.WriteFile(filepath.Join(e.CodexHome(), "config.toml"), b.String())
}

// StartCodex starts `codex exec --json prompt` (plus args) in the project
// and returns at once. Write the config with CodexConfig first.
func (e *Env) StartCodex(prompt string, args ...string) *Proc {
	e.t.Helper()
	bin := Bin(e.t, Codex)
	argv := append([]string{"exec", "--json", "--skip-git-repo-check"}, args...)
	return e.start([]string{"E2E_MOCK_KEY=e2e"}, bin, append(argv, "--", prompt)...)
}

// RunCodex runs `codex exec --json prompt` to its end.
func (e *Env) RunCodex(prompt string, args ...string) *CodexRun {
	e.t.Helper()
	return e.CodexResult(e.StartCodex(prompt, args...))
}

// CodexResult waits for a started Codex and reads its output.
func (e *Env) CodexResult(p *Proc) *CodexRun {
	e.t.Helper()
	r := &CodexRun{Output: p.Wait(), env: e}
	r.Events = decodeLines(r.Stdout)
	for _, ev := range r.Events {
		if str(ev, "type") == "thread.started" {
			r.ThreadID = str(ev, "thread_id")
		}
	}
	if r.ThreadID == "" {
		e.t.Fatalf("codex printed no thread id (exit %d)\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// Rollout is the path of the run's rollout file.
func (r *CodexRun) Rollout(t testing.TB) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(r.env.CodexHome(), "sessions", "*", "*", "*", "rollout-*-"+r.ThreadID+".jsonl"))
	if len(matches) != 1 {
		t.Fatalf("the rollout of %s: found %v", r.ThreadID, matches)
	}
	return matches[0]
}
