package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// generateProject records agent sessions in a fresh project: everyday
// commands, a risky one and a denied one.
func generateProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s := session.Open(filepath.Join(dir, ".cuff"))
	for _, at := range []time.Time{time.Now().Add(-3 * time.Hour), time.Now().Add(-time.Hour)} {
		w, err := s.Create(&transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceClaudeHook, WorkingDirectory: dir}, at)
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		var evs []*transcript.Event
		for _, c := range []string{"git status", "git diff HEAD", "git diff --stat", "npm run build", "npm run lint",
			"curl https://api.example.com/health", "curl https://api.example.com/health", "cd web && npm test", "rm -rf /tmp/cache"} {
			evs = append(evs, transcript.New(w.ID(), at, &transcript.BashRun{Command: c, ExitCode: &ok, WorkingDirectory: dir}))
		}
		req := transcript.New(w.ID(), at, &transcript.ApprovalRequest{RequestID: "r", Command: "git push --force origin main"})
		dec := transcript.New(w.ID(), at, &transcript.ApprovalDecision{RequestID: "r", Decision: transcript.DecisionDeny})
		req.CallID, dec.CallID = "a1", "a1"
		evs = append(evs, req, dec, transcript.New(w.ID(), at, &transcript.BashRun{Command: "git push --force origin main", ExitCode: &ok}))
		if err := w.Append(evs...); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(transcript.StatusComplete); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// generate runs `cuff record generate` in-process against the project in
// dir, with a private home.
func generate(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + testStateHome(t)}
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: colorprofile.NewWriter(&out, env), stderr: &errOut, environ: env,
		dir: filepath.Join(dir, ".cuff")}
	cmd := a.recordGenerateCommand()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if a.log != nil {
		a.log.Close()
	}
	return out.String(), errOut.String(), err
}

func TestRecordGenerateWritesALoadablePolicy(t *testing.T) {
	dir := generateProject(t)
	stdout, stderr, err := generate(t, dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	p, err := gate.ParsePolicy("stdout", []byte(stdout))
	if err != nil {
		t.Fatalf("gate cannot load the output: %v\n%s", err, stdout)
	}
	if probs := gate.CheckPolicy(p); len(probs) > 0 {
		t.Errorf("policy check: %v", probs)
	}
	matches := map[string]bool{}
	for _, r := range p.Rules {
		matches[r.Match] = true
	}
	for _, m := range []string{"git status", "git diff *", "npm run *", "curl https://api.example.com/health", "cd web", "npm test", "rm -rf /tmp/cache"} {
		if !matches[m] {
			t.Errorf("no rule %q in\n%s", m, stdout)
		}
	}
	for m := range matches {
		if strings.HasPrefix(m, "curl") && strings.Contains(m, "*") || strings.HasPrefix(m, "git push") || strings.HasPrefix(m, "rm *") {
			t.Errorf("rule %q widens or allows what it must not", m)
		}
	}
	if !strings.Contains(stderr, "got no rule") || !strings.Contains(stderr, "a person denied it") {
		t.Errorf("summary:\n%s", stderr)
	}

	// --output, --format json, --strategy exact, --min-frequency.
	out := filepath.Join(t.TempDir(), "policy.json")
	if _, stderr, err := generate(t, dir, "--format", "json", "--strategy", "exact", "--min-frequency", "4", "--output", out); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	data, _ := os.ReadFile(out)
	var doc struct {
		Rules []struct {
			Match     string `json:"match"`
			Frequency int    `json:"frequency"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Rules) != 1 || doc.Rules[0].Match != "curl https://api.example.com/health" || doc.Rules[0].Frequency != 4 {
		t.Errorf("json exact min 4: %v %s", err, data)
	}
	if _, err := gate.LoadPolicy(out); err != nil {
		t.Errorf("gate cannot load the JSON file: %v", err)
	}
}

func TestRecordGenerateDryRun(t *testing.T) {
	dir := generateProject(t)
	stdout, stderr, err := generate(t, dir, "--dry-run")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	for _, want := range []string{"Replayed 20 runs", "allowed", "asked", "denied", "ask → allow curl https://api.example.com/health",
		"Still not allowed without asking", "git push --force origin main"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".cuff", "policy.yml")); err == nil {
		t.Error("a dry run wrote a policy")
	}
	stdout, _, err = generate(t, dir, "--dry-run", "--format", "json")
	var rep struct {
		Runs     int            `json:"runs"`
		Proposed map[string]int `json:"proposed"`
		Current  map[string]int `json:"current"`
	}
	if err != nil || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Runs != 20 ||
		rep.Proposed["allow"]+rep.Proposed["ask"]+rep.Proposed["deny"]+rep.Proposed["no_decision"] != 20 ||
		rep.Proposed["allow"] <= rep.Current["allow"] {
		t.Errorf("json dry run: %v %+v\n%s", err, rep, stdout)
	}
}

func TestRecordGenerateErrors(t *testing.T) {
	dir := generateProject(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--strategy", "semantic"}, "needs a cop command"},
		{[]string{"--strategy", "clever"}, `unknown strategy "clever"`},
		{[]string{"--format", "toml"}, `unknown format "toml"`},
		{[]string{"--min-frequency", "0"}, "--min-frequency 0 is less than 1"},
		{[]string{"--since", "yesterday"}, "Invalid date format 'yesterday'"},
	} {
		_, _, err := generate(t, dir, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	var h hinted
	_, _, err := generate(t, dir, "--strategy", "semantic")
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "gate.cop.command") {
		t.Errorf("semantic without a cop has no hint: %v", err)
	}
	_, stderr, err := generate(t, t.TempDir())
	if err != nil || !strings.HasPrefix(stderr, "No recordings found.") {
		t.Errorf("empty store: %v %q", err, stderr)
	}
}

func TestRecordGenerateSemanticRunsTheCop(t *testing.T) {
	dir := generateProject(t)
	cop := filepath.Join(t.TempDir(), "cop.sh")
	script := "#!/bin/sh\ncase \"$(cat)\" in *rm*) echo '{\"flagged\": true, \"reason\": \"deletes\"}';; *) echo '{\"flagged\": false}';; esac\n"
	if err := os.WriteFile(cop, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	settings := "gate:\n  cop:\n    command: " + cop + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	trustProject(t, dir) // cuff runs the cop: only once trusted
	stdout, stderr, err := generate(t, dir, "--strategy", "semantic")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	if strings.Contains(stdout, "rm -rf") || !strings.Contains(stdout, `"git diff *"`) || !strings.Contains(stderr, "the cop flagged it: deletes") {
		t.Errorf("semantic:\n%s\n%s", stdout, stderr)
	}
}
