// Package agenttest runs the real agents (Claude Code and Codex, installed
// from npm by .ci/agents) against scripted mocks of their model APIs on
// 127.0.0.1, in a private world (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME,
// TMPDIR; telemetry and updates off; proxies at a closed port), so a test
// reads like a conversation and checks what cuff made of it.
//
// # Set-up
//
// The test binary needs TestMain to build cuff and cuff-tui once:
//
//	func TestMain(m *testing.M) { agenttest.Main(m) }
//
// Bin finds an agent in the cache (~/.cache/cuff-e2e, or $CUFF_E2E_CACHE)
// at the version pinned in versions.txt, installing it with .ci/agents
// when missing; when npm cannot be reached the test is skipped, saying so.
// CUFF_E2E_AGENTS=latest runs the newest versions instead.
//
// # Scripting a conversation
//
// A script is one Conversation per agent: its Prompt (the main agent's is
// the prompt given on the command line; a sub-agent's is the prompt of the
// delegation that starts it) and its Replies, one per model turn. A reply
// is made of parts: Text, Thinking, Tool (any tool with its input), Bash,
// Delegate (Claude Code's Agent tool), Exec (Codex's exec_command), MCP (a
// tool of an MCP server). A reply with a tool call ends the model's turn;
// the agent runs the tool and asks again, and the next reply answers.
// WithID fixes a call's id so the test can find it afterwards:
//
//	m := agenttest.NewAnthropic(t,
//		agenttest.Say("count the files",
//			agenttest.Turn(agenttest.Text("Asking a helper."),
//				agenttest.Delegate("general-purpose", "count", "Count the files")),
//			agenttest.Turn(agenttest.Text("Done."))),
//		agenttest.Say("Count the files",
//			agenttest.Turn(agenttest.Bash("ls | wc -l").WithID("toolu_ls")),
//			agenttest.Turn(agenttest.Text("4 files."))))
//
// The mock answers the Anthropic Messages API (HEAD /, POST
// /v1/messages, streamed as server-sent events; requests that offer no
// tools, such as titles, get plain text) or, with NewResponses, the OpenAI
// Responses API. A request the script does not cover fails the test at its
// end. Result(id) is what the agent sent back for a tool call: the output
// or the denial the model read.
//
// # Running Claude Code with cuff's hook
//
//	e := agenttest.New(t)                        // private home and a git project
//	e.Cuff("hook", "install", "claude", "--user") // as a person installs it
//	r := e.RunClaude(m, "count the files")       // claude -p … --output-format stream-json
//	_, events := e.Recording(r.SessionID)        // the cuff session of that conversation
//	agenttest.ExpectStory(t, events,
//		"user: count the files",
//		"main: Asking a helper.",
//		"main: delegate general-purpose: Count the files",
//		"  sub1: $ ls | wc -l [allow]",
//		"  sub1: $ ls | wc -l → exit 0",
//		…)
//
// Story tells a session one line per event (agent, text, command, verdict,
// outcome, nesting), so an assertion on order and attribution reads as
// the session does. StartClaude runs the agent in the background (for a
// test that answers an approval in the TUI: StartTUI opens cuff in tmux
// and returns once it watches for requests); ClaudeSettings writes any
// other settings (HookSettings for a hook command of the test's own).
//
// # Running Codex with cuff's MCP server
//
//	m := agenttest.NewResponses(t, agenttest.Say("greet",
//		agenttest.Turn(agenttest.MCP("cuff", "bash_recorder_execute",
//			map[string]any{"command": "echo hi"}).WithID("call_1")),
//		agenttest.Turn(agenttest.Text("Done."))))
//	e.CodexConfig(m, agenttest.MCPServer{Name: "cuff", Command: agenttest.CuffBin(t),
//		Args: []string{"mcp"}, Approved: []string{"bash_recorder.execute"}})
//	r := e.RunCodex("greet")                      // codex exec --json
//
// Codex offers MCP tools to the model as a namespace (mcp__cuff); the mock
// answers in that form. codex exec has no one to approve an MCP call, so
// list the tools it may call in Approved.
//
// Everything waits on real signals (process exit, files, the screen), with
// generous bounds only as a guard against a hang.
package agenttest
