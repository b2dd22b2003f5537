package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/recorder/scripts"
	"github.com/cuff-dev/cuff/transcript"
)

const scriptSettings = "scripts:\n  patterns: [\"scripts/*.sh\"]\n  cache_ttl: 0\n"

func writeScript(t *testing.T, p *testProject, name, body string) {
	t.Helper()
	dir := filepath.Join(p.root, "scripts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
}

func TestScriptTools(t *testing.T) {
	p := newProject(t, scriptSettings)
	writeScript(t, p, "hello.sh", "#!/bin/sh\n# Say hello to someone\necho \"hello $*\"\necho \"greeting=$GREETING\" >&2\n")
	writeScript(t, p, "fail-hard.sh", "#!/bin/sh\n# Fail on purpose\nexit 2\n")
	ts := serve(t, p, nil, nil, "")

	res, err := ts.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	descs := map[string]string{}
	for _, tl := range res.Tools {
		descs[tl.Name] = tl.Description
	}
	if descs["script_scripts_hello"] != "Say hello to someone" || descs["script_scripts_fail_hard"] == "" || descs[scripts.ListToolName] == "" {
		t.Fatalf("script tools: %v", descs)
	}

	out := ts.call(t, "script_scripts_hello", map[string]any{"args": []string{"world"}, "env": map[string]string{"GREETING": "hi"}}, nil)
	var sr ScriptResult
	decode(t, out, &sr)
	if out.IsError || sr.Stdout != "hello world\n" || sr.Stderr != "greeting=hi\n" || sr.RecordingID == nil {
		t.Errorf("hello: %s", text(out))
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"args": []string{"a;b"}}, "Argument contains dangerous characters: {';'}"},
		{map[string]any{"env": map[string]string{"LD_PRELOAD": "x"}}, "Blocked environment variables"},
		{map[string]any{"args": "world"}, `"args" must be an array of strings, got the string "world"`},
		{map[string]any{"env": map[string]any{"A": 1}}, `"env".A must be a string`},
		{map[string]any{"timeout": 0}, `"timeout" must be a whole number of seconds`},
	} {
		res := ts.call(t, "script_scripts_hello", c.args, nil)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%v: %s, want %q", c.args, text(res), c.want)
		}
	}

	fail := ts.call(t, "script_scripts_fail_hard", nil, nil)
	if !fail.IsError || !strings.Contains(text(fail), "Script failed with exit code 2") {
		t.Errorf("failing script: %s", text(fail))
	}

	list := ts.call(t, scripts.ListToolName, nil, nil)
	var lr scripts.ListResult
	decode(t, list, &lr)
	if len(lr.Scripts) != 2 || lr.Scripts[1].Path != "scripts/hello.sh" {
		t.Errorf("list: %+v", lr)
	}

	// A new script shows up in the next listing (cache_ttl: 0).
	writeScript(t, p, "later.sh", "#!/bin/sh\necho later\n")
	if names := toolNames(t, ts.client); !slices.Contains(names, "script_scripts_later") {
		t.Errorf("new script not listed: %v", names)
	}

	// Script runs are recorded, the refused one as a failed start.
	var runs []*transcript.BashRun
	for _, evs := range events(t, p.dir) {
		for _, ev := range ofType(evs, transcript.TypeBashRun) {
			runs = append(runs, ev.Body.(*transcript.BashRun))
		}
	}
	if len(runs) != 4 {
		t.Errorf("recorded %d script runs, want 4 (hello, 2 refusals, fail)", len(runs))
	}
}

func TestScriptDenyRule(t *testing.T) {
	p := newProject(t, scriptSettings)
	writeScript(t, p, "deploy.sh", "#!/bin/sh\necho deployed\n")
	p.write(t, "policy.yml", "rules:\n  - match: \"*deploy.sh*\"\n    action: deny\n    reason: \"deploys go through CI\"\n")
	ts := serve(t, p, nil, nil, "")
	res := ts.call(t, "script_scripts_deploy", nil, nil)
	if !res.IsError || !strings.Contains(text(res), "deploys go through CI") {
		t.Errorf("deny rule on a script: %s", text(res))
	}
}
