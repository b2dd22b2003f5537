package script

import (
	"fmt"
	"maps"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
)

// md turns the placeholder ‵ into a backtick, so that markdown with inline
// code and fences can be written in Go raw strings.
func md(s string) string { return strings.ReplaceAll(s, "‵", "`") }

// use is a usage figure: input, output, cache read and cache write tokens.
func use(in, out, read, write int64) transcript.Usage {
	return transcript.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: read, CacheWriteTokens: write}
}

// Inputs of Claude Code's tools, in the order Claude Code writes the fields.
type (
	readInput struct {
		FilePath string `json:"file_path"`
	}
	grepInput struct {
		Pattern    string `json:"pattern"`
		Path       string `json:"path"`
		OutputMode string `json:"output_mode"`
		LineNums   bool   `json:"-n"`
	}
	editInput struct {
		FilePath  string `json:"file_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	}
	writeInput struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content"`
	}
	fetchInput struct {
		URL    string `json:"url"`
		Prompt string `json:"prompt"`
	}
)

// subAgentID is the id Claude Code gave the Explore sub-agent.
const subAgentID = "a7e3f2c1"

// story writes the session between its start and its end.
func story(b *builder) {
	proj := files{comparePath: compareSource}
	testText, err := versionTestSource()
	b.fail(err)
	proj[testPath] = testText
	before := maps.Clone(proj)
	versions, err := corpus()
	b.fail(err)
	if b.err != nil {
		return
	}

	b.emit(&transcript.SessionStart{
		Agent: "claude-code", Source: transcript.SourceClaudeHook, WorkingDirectory: projectDir, CuffVersion: "0.4.0",
		Host: &transcript.Host{OS: "linux", Arch: "amd64", Hostname: "devbox"},
		Git:  &transcript.Git{Branch: "fix/prerelease-order", SHA: "9d41c07e2b86f3a15e0c4d7b92a6f18e5c3b0d24", Worktree: projectDir},
	}, "")

	b.wait(4210)
	b.user(md(`‵verkit sort‵ puts ‵1.4.0-rc.10‵ before ‵1.4.0-rc.2‵ (issue #42). Can you find the cause and fix it? Add a regression test and run the whole suite. When it's green, commit and push the branch so I can open a PR.`))

	b.wait(9370)
	m := b.message(mainModel, use(3, 412, 11842, 3127))
	b.think(m, md(`The user says sorting puts rc.10 before rc.2. That smells like pre-release identifiers compared as strings: "10" < "2" lexically. SemVer says identifiers made only of digits compare numerically. I should find the comparison code first, then look at the tests to see why this was never caught.`))
	b.wait(1410)
	b.say(m, "I'll start by finding where versions are compared.")
	b.wait(630)
	grepOut, err := grepFuncs(compareSource)
	b.fail(err)
	b.tool("Grep", grepInput{Pattern: `func (Compare|Less|comparePrerelease)\b`, Path: projectDir, OutputMode: "content", LineNums: true},
		187, grepOut, false)

	b.wait(2350)
	b.message(mainModel, use(6, 88, 15012, 310))
	b.tool("Read", readInput{FilePath: abs(comparePath)}, 41, numbered(compareSource, 1, 1<<30), false)

	b.wait(2640)
	b.message(mainModel, use(6, 71, 15322, 1088))
	b.tool("Read", readInput{FilePath: abs("version/compare_test.go")}, 12,
		"<tool_use_error>File does not exist. Did you mean version_test.go?</tool_use_error>", true)

	b.wait(1930)
	b.message(mainModel, use(6, 69, 16410, 102))
	b.tool("Read", readInput{FilePath: abs(testPath)}, 58, numbered(testText, 1, 1<<30), false)

	b.wait(7460)
	m = b.message(mainModel, use(6, 236, 16512, 9873))
	b.say(m, md(`Found the likely cause: ‵comparePrerelease‵ compares each identifier with ‵strings.Compare‵, so ‵"10" < "2"‵. The ‵TestCompare‵ table only has single-digit pre-release numbers, which is why it never failed.

Let me read the issue to make sure that's the whole report.`))
	b.wait(720)
	issueCmd := "gh issue view 42"
	call, req := b.ask(issueCmd, transcript.Verdict{Decision: "ask", Tier: "ask_rule", Rule: "gh * (.cuff/policy.yml)",
		Reasons: []string{"gh acts on GitHub with your credentials", "gh talks to other machines (network client)"}}, nil)
	b.wait(11840)
	b.decide(call, req, transcript.DecisionApprove, "")
	b.wait(140)
	b.bash(run{command: issueCmd, description: "Read issue #42", ms: 1290, stdout: issueText}, call)

	b.wait(5230)
	m = b.message(mainModel, use(6, 164, 26385, 702))
	b.say(m, md(`The issue also mentions ‵alpha.10‵. I'll check the spec's exact rules for mixed numeric and alphanumeric identifiers before changing anything.`))
	b.wait(880)
	b.tool("WebFetch", fetchInput{URL: "https://semver.org/#spec-item-11",
		Prompt: "What are the exact precedence rules for pre-release versions, in particular for numeric identifiers?"},
		4630, md(specSummary), false)

	b.wait(24160)
	m = b.message(mainModel, use(6, 958, 27087, 1466))
	b.say(m, md(rootCause))
	b.wait(1240)
	old, inserted, err := regressionEdit()
	b.fail(err)
	b.fail(proj.edit(testPath, old, inserted))
	snippet, err := editSnippet(testPath, proj[testPath], inserted)
	b.fail(err)
	b.tool("Edit", editInput{FilePath: abs(testPath), OldString: old, NewString: inserted}, 35, snippet, false)

	b.wait(2110)
	m = b.message(mainModel, use(6, 61, 28553, 1203))
	b.say(m, "Running the package tests first, to see the new cases fail:")
	b.wait(520)
	failOut, err := failingTestOutput(proj[testPath])
	b.fail(err)
	b.bash(run{command: "go test ./version/", description: "Run version package tests", ms: 3140, exit: 1, stdout: failOut}, "")

	b.wait(9120)
	m = b.message(mainModel, use(6, 318, 29756, 742))
	b.say(m, md(fmt.Sprintf(`Reproduced: %d of the %d new cases fail, exactly the ones with multi-digit numbers. Before I change ‵Compare‵ I want to know whether anything relies on the current order, so I'll have an Explore agent check the callers and the history.`,
		failingCases(), len(regressionCases))))
	b.wait(910)
	subAgent(b, proj[testPath])

	b.wait(6950)
	m = b.message(mainModel, use(6, 702, 30498, 1874))
	b.say(m, md(`Nothing depends on the lexical order, and ‵verkit latest‵ has the same bug because it uses ‵Less‵, so one fix in ‵comparePrerelease‵ covers both commands.`))
	b.wait(19730)
	b.fail(proj.edit(comparePath, fixOld, fixNew))
	snippet, err = editSnippet(comparePath, proj[comparePath], fixNew)
	b.fail(err)
	b.tool("Edit", editInput{FilePath: abs(comparePath), OldString: fixOld, NewString: fixNew}, 29, snippet, false)

	b.wait(1530)
	buildOut, buildErr, err := buildFailure(proj[comparePath])
	b.fail(err)
	b.bash(run{command: "go test ./version/", description: "Run version package tests", ms: 2210, exit: 1,
		stdout: buildOut, stderr: buildErr}, "")

	b.wait(3420)
	m = b.message(mainModel, use(6, 143, 32372, 695))
	b.say(m, md("I used ‵strconv‵ and ‵cmp‵ without importing them."))
	b.wait(640)
	b.fail(proj.edit(comparePath, importOld, importNew))
	snippet, err = editSnippet(comparePath, proj[comparePath], importNew)
	b.fail(err)
	b.tool("Edit", editInput{FilePath: abs(comparePath), OldString: importOld, NewString: importNew}, 27, snippet, false)

	b.wait(1310)
	b.bash(run{command: "go test ./...", description: "Run all tests", ms: 4870, stdout: fmt.Sprintf(
		"?   \t%[1]s/cmd/verkit\t[no test files]\nok  \t%[1]s/internal/changelog\t0.004s\nok  \t%[1]s/version\t0.007s\n",
		modulePath)}, "")

	b.wait(6650)
	m = b.message(mainModel, use(6, 1412, 33067, 512))
	b.say(m, md(fmt.Sprintf(`All green, including the new cases. The table only covers the pairs I thought of, so I'll add a corpus test over %s versions in increasing precedence (two-digit numbers included) and a fuzz target that checks ‵Compare‵ is antisymmetric.`,
		grouped(corpusSize))))
	b.wait(28390)
	proj[corpusPath] = corpusSource
	b.tool("Write", writeInput{FilePath: abs(corpusPath), Content: corpusSource}, 22,
		"File created successfully at: "+abs(corpusPath), false)

	b.wait(1720)
	b.bash(run{command: "go test -v -run TestCompareCorpus ./version/", description: "Run the corpus test verbosely",
		ms: 2960, stdout: corpusVerboseOutput(versions)}, "")

	b.wait(3910)
	m = b.message(mainModel, use(6, 128, 33579, 1702))
	b.say(m, fmt.Sprintf("All %s ordered pairs pass in both directions. Now a minute of fuzzing:", grouped(len(versions)-1)))
	b.wait(560)
	const fuzzSeconds = 60
	b.bash(run{command: "go test -run '^$' -fuzz FuzzCompare ./version/", description: "Fuzz Compare",
		timeoutMS: fuzzSeconds * 1000, ms: fuzzSeconds*1000 + 4, timedOut: true, stdout: fuzzOutput(fuzzSeconds)}, "")

	b.wait(8260)
	m = b.message(mainModel, use(6, 221, 35281, 986))
	b.say(m, md(`The fuzzer ran until the tool's 60 s limit stopped it: a timeout, not a failure, and no counterexample in several million inputs. In CI it should run bounded, with ‵-fuzztime=30s‵. Let me check the command from the issue:`))
	b.wait(610)
	sortArgs := []string{"1.4.0", "1.4.0-rc.10", "1.4.0-rc.2", "1.4.0-beta", "1.3.9", "1.4.0-rc.9"}
	sorted, err := sortOutput(sortArgs)
	b.fail(err)
	b.bash(run{command: "go run ./cmd/verkit sort " + strings.Join(sortArgs, " "), description: "Sort the issue's example",
		ms: 1840, stdout: sorted}, "")

	b.wait(3120)
	m = b.message(mainModel, use(6, 97, 36267, 412))
	b.say(m, "The CLI sorts the issue's example correctly now. Here's what changed:")
	b.wait(480)
	b.bash(run{command: "git status --short && git diff --stat", description: "Show changed files", ms: 31,
		stdout: diffStat(before, proj, []string{comparePath, testPath}, []string{corpusPath})}, "")

	b.wait(4230)
	m = b.message(mainModel, use(6, 133, 36679, 389))
	b.say(m, "Committing and pushing the branch, as you asked.")
	b.wait(690)
	push := `git add version/ && git commit -m "version: compare numeric pre-release identifiers by value" && git push -u origin fix/prerelease-order`
	call, req = b.ask(push, transcript.Verdict{Decision: "ask", Tier: "ask_rule", Rule: "git push * (.cuff/policy.yml)",
		Reasons: []string{"pushing publishes work"}}, []string{"untrusted"})
	b.wait(33870)
	b.decide(call, req, transcript.DecisionDeny, "Hold on: I want to read the diff before anything leaves this machine. Leave it uncommitted.")

	b.wait(31480)
	m = b.message(mainModel, use(6, 1187, 37068, 611))
	b.say(m, md(fmt.Sprintf(summary, len(regressionCases), failingCases(), grouped(len(versions)-1), grouped(len(versions)))))
}

// grouped writes n with a thousands separator, as the agent writes numbers.
func grouped(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%s,%03d", grouped(n/1000), n%1000)
}

// failingCases counts the regression cases the original code gets wrong.
func failingCases() int {
	n := 0
	for _, c := range regressionCases {
		bad, _ := compareStrings(c[0], c[1], false)
		good, _ := compareStrings(c[0], c[1], true)
		if bad != good {
			n++
		}
	}
	return n
}

// grepFuncs is the Grep tool's content-mode answer for the functions of
// compare.go.
func grepFuncs(text string) (string, error) {
	var out []string
	for _, f := range []string{"func Compare(", "func Less(", "func comparePrerelease("} {
		line, _, err := lineOf(text, f)
		if err != nil {
			return "", err
		}
		src := strings.Split(text, "\n")[line-1]
		out = append(out, fmt.Sprintf("%s:%d:%s", abs(comparePath), line, src))
	}
	return strings.Join(out, "\n"), nil
}

// subAgent writes the Explore agent's delegation: its prompt, its turns and
// its commands, then its report.
func subAgent(b *builder, testText string) {
	const agentType = "Explore"
	prompt := md(`In /home/dev/src/verkit, find every caller of ‵version.Compare‵ and ‵version.Less‵ and say whether any of them relies on pre-release identifiers being compared as strings (so that "10" < "2"). Also find out since when ‵comparePrerelease‵ compares with ‵strings.Compare‵, and whether any test data or golden file contains a pre-release number of two or more digits. Report file:line for each caller. Do not change any files.`)
	call := b.delegate(agentType, prompt, subAgentID)
	b.wait(350)
	b.user(prompt)

	b.wait(4870)
	m := b.message(subModel, use(4, 96, 0, 4211))
	b.say(m, md("I'll search for callers of ‵version.Compare‵ and ‵version.Less‵ first."))
	b.wait(410)
	b.bash(run{command: `grep -rn --include='*.go' -E 'version\.(Compare|Less)\b' .`, description: "Find callers of Compare and Less",
		ms: 38, stdout: callersText}, "")

	b.wait(6210)
	m = b.message(subModel, use(4, 118, 4211, 402))
	b.say(m, "Three callers. Now the history of the version package:")
	b.wait(520)
	logText, first := gitLogOutput(testText)
	const keepBytes = 16 << 10
	b.bash(run{command: "git log -p -- version/", description: "History of the version package",
		ms: 212, stdout: logText, keep: keepBytes}, "")

	b.wait(7340)
	m = b.message(subModel, use(4, 131, 4613, 9160))
	b.say(m, md(fmt.Sprintf("The oldest commit, ‵%s‵ (%s), already has ‵strings.Compare‵ in ‵comparePrerelease‵. Checking test data for two-digit pre-release numbers:",
		first.hash[:7], first.subject)))
	b.wait(480)
	b.bash(run{command: `grep -rnE '(alpha|beta|rc)\.[0-9]{2,}' --include='*.golden' --include='*.txt' --include='*.json' . || echo "no matches"`,
		description: "Look for two-digit pre-release numbers in test data", ms: 27, stdout: "no matches\n"}, "")

	b.wait(11650)
	m = b.message(subModel, use(4, 402, 13773, 188))
	report := md(fmt.Sprintf(subReport, first.hash[:7], first.subject, first.when.Format("2 January 2006")))
	b.say(m, report)
	b.wait(640)
	b.endDelegation(call, agentType, subAgentID, report)
}

// callersText is the sub-agent's grep for callers.
const callersText = `./cmd/verkit/sort.go:31:	slices.SortStableFunc(vs, version.Compare)
./cmd/verkit/latest.go:22:		if version.Less(best, v) {
./internal/changelog/changelog.go:58:	slices.SortFunc(rels, func(a, b Release) int { return version.Compare(b.Version, a.Version) })
`
