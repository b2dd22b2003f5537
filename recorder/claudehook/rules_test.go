package claudehook

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPermissionRulesReadsSettingsAndCommandLines(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	os.WriteFile(user, []byte(`{"permissions":{"allow":["Bash(ls:*)"],"deny":["Bash(git push:*)","Read(./.env)"],"ask":["Bash"]}}`), 0o600)
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"permissions":`), 0o600)
	extra := filepath.Join(dir, "extra.json")
	os.WriteFile(extra, []byte(`{"permissions":{"deny":["Bash(curl:*)"]}}`), 0o600)
	got := PermissionRules([]string{user, broken, filepath.Join(dir, "missing.json")}, [][]string{
		{"/bin/sh", "-c", "cuff hook claude"},
		{"claude", "-p", "hi", "--disallowedTools", "Bash(rm:*) Edit", "Bash(make deploy),Read", "--settings", extra},
		{"claude", "--disallowed-tools=Bash(npm publish:*)", `--settings={"permissions":{"ask":["Bash(docker *)"]}}`},
	})
	want := []Rule{{"git push:*", user}, {"*", user}, {"rm:*", ""}, {"make deploy", ""}, {"curl:*", extra}, {"npm publish:*", ""}, {"docker *", ""}}
	if !slices.Equal(got, want) {
		t.Errorf("rules %q\nwant  %q", got, want)
	}
}

func TestMayMatchErrsTowardsYes(t *testing.T) {
	for _, c := range []struct {
		rule, cmd string
		want      bool
	}{
		{"ls:*", "ls -a", true},
		{"ls:*", "cd sub && ls", true},
		{"git push:*", "git  push origin", true},
		{"git push:*", "FOO=1 git push", true},
		{"make deploy", "make test", false},
		{"npm run *:prod", "npm run build:prod", true},
		{"*", "anything", true},
		{"", "anything", true},
		{"curl:*", "go test ./...", false},
	} {
		if got := mayMatch(c.rule, c.cmd); got != c.want {
			t.Errorf("mayMatch(%q, %q) = %v, want %v", c.rule, c.cmd, got, c.want)
		}
	}
}

func FuzzPermissionRules(f *testing.F) {
	f.Add(`{"permissions":{"deny":["Bash(a:*)"],"ask":["Bash"]}}`, "Bash(x) Edit,Bash(y:*)", "x y")
	f.Fuzz(func(t *testing.T, settings, tools, command string) {
		rules := PermissionRules(nil, [][]string{{"claude", "--disallowedTools", tools, "--settings", "{" + settings}})
		for _, r := range rules {
			if !mayMatch(r.Pattern, r.Pattern) {
				t.Fatalf("a rule does not match its own text: %q", r.Pattern)
			}
			_ = mayMatch(r.Pattern, command)
		}
	})
}
