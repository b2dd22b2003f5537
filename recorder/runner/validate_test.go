package runner

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name  string
		cmd   Command
		code  Code
		field string
	}{
		{"no argv", Command{}, CodeInvalid, "executable"},
		{"empty executable", Command{Argv: []string{""}}, CodeInvalid, "executable"},
		{"whitespace executable", Command{Argv: []string{"  \t"}}, CodeInvalid, "executable"},
		{"metacharacter", Command{Argv: []string{"ls;rm"}}, CodeInvalid, "executable"},
		{"pipe", Command{Argv: []string{"cat|sh"}}, CodeInvalid, "executable"},
		{"substitution", Command{Argv: []string{"$(id)"}}, CodeInvalid, "executable"},
		{"whole command line", Command{Argv: []string{"ls -la"}}, CodeInvalid, "executable"},
		{"control character", Command{Argv: []string{"ls\x1b"}}, CodeInvalid, "executable"},
		{"NUL in argument", Command{Argv: []string{"echo", "ok", "a\x00b"}}, CodeInvalid, "argv[2]"},
		{"argv and shell", Command{Argv: []string{"ls"}, Shell: "/bin/sh", Script: "ls"}, CodeInvalid, "argv"},
		{"script without shell", Command{Script: "ls"}, CodeInvalid, "shell"},
		{"NUL in script", Command{Shell: "/bin/sh", Script: "a\x00"}, CodeInvalid, "script"},
		{"shell with metacharacter", Command{Shell: "sh;x", Script: "true"}, CodeInvalid, "shell"},
		{"negative timeout", Command{Argv: []string{"true"}, Timeout: -time.Second}, CodeInvalid, "timeout"},
		{"timeout over maximum", Command{Argv: []string{"true"}, Timeout: time.Hour, MaxTimeout: time.Minute}, CodeInvalid, "timeout"},
		{"default timeout over maximum", Command{Argv: []string{"true"}, MaxTimeout: time.Second}, CodeInvalid, "timeout"},
		{"negative grace", Command{Argv: []string{"true"}, KillGrace: -1}, CodeInvalid, "kill_grace"},
		{"bad capture", Command{Argv: []string{"true"}, Capture: "both"}, CodeInvalid, "capture"},
		{"negative output limit", Command{Argv: []string{"true"}, MaxOutputBytes: -1}, CodeInvalid, "max_output_size"},
		{"negative memory", Command{Argv: []string{"true"}, Limits: Limits{MemoryMB: -1}}, CodeInvalid, "limits.memory_mb"},
		{"huge cpu", Command{Argv: []string{"true"}, Limits: Limits{CPUSeconds: 1 << 30}}, CodeInvalid, "limits.cpu_seconds"},
		{"bad env mode", Command{Argv: []string{"true"}, Env: Env{Mode: "all"}}, CodeInvalid, "env.mode"},
		{"bad pattern", Command{Argv: []string{"true"}, Env: Env{Exclude: []string{"[A-"}}}, CodeInvalid, "env.exclude"},
		{"empty pattern", Command{Argv: []string{"true"}, Env: Env{Include: []string{""}}}, CodeInvalid, "env.include"},
		{"bad env name", Command{Argv: []string{"true"}, Env: Env{Overrides: map[string]string{"1X": "v"}}}, CodeInvalid, "env[1X]"},
		{"env name with =", Command{Argv: []string{"true"}, Env: Env{Overrides: map[string]string{"A=B": "v"}}}, CodeInvalid, "env[A=B]"},
		{"NUL in env value", Command{Argv: []string{"true"}, Env: Env{Overrides: map[string]string{"A": "\x00"}}}, CodeInvalid, "env[A]"},
		{"never-pass override", Command{Argv: []string{"true"}, Env: Env{Deny: []string{"*_TOKEN"}, Overrides: map[string]string{"GH_TOKEN": "v"}}}, CodeInvalid, "env[GH_TOKEN]"},
		{"missing root", Command{Argv: []string{"true"}, Root: "/no/such/root"}, CodeBadWorkDir, "root"},
		{"NUL in dir", Command{Argv: []string{"true"}, Dir: "a\x00"}, CodeInvalid, "working_dir"},
		{"not found", Command{Argv: []string{"cuff-surely-missing-9"}}, CodeNotFound, "executable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cmd.Validate()
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want *Error, got %v", err)
			}
			if e.Code != tc.code || e.Field != tc.field || e.Message == "" || e.Hint == "" {
				t.Fatalf("want %s on %q with message and hint, got %+v", tc.code, tc.field, e)
			}
			if !strings.HasPrefix(e.Error(), string(tc.code)+": ") {
				t.Fatalf("Error() = %q", e.Error())
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []Command{
		{Argv: []string{"true"}},
		{Argv: []string{"/bin/echo", "a;b", "$x", ""}},
		{Shell: "sh", Script: "echo $HOME; ls | wc -l"},
		{Argv: []string{"true"}, Root: dir, Dir: ".", Timeout: time.Second, MaxTimeout: time.Minute,
			Capture: CaptureStderr, MaxOutputBytes: 10, Limits: Limits{MemoryMB: 100, CPUSeconds: 5},
			Env: Env{Mode: EnvClean, Include: []string{"PATH"}, Exclude: []string{"*_KEY"},
				Overrides: map[string]string{"_A1": "x"}}},
	} {
		if err := c.Validate(); err != nil {
			t.Errorf("%v: %v", c.String(), err)
		}
	}
}

func TestCommandString(t *testing.T) {
	c := Command{Argv: []string{"git", "commit", "-m", "it's done", "$HOME"}}
	if got := c.String(); got != `git commit -m "it's done" '$HOME'` {
		t.Fatalf("got %s", got)
	}
	c = Command{Shell: "/bin/bash", Script: "ls | wc"}
	if c.String() != "ls | wc" || !c.ShellMode() {
		t.Fatalf("shell mode display %q", c.String())
	}
}

// FuzzValidate runs arbitrary executables, arguments, environment names and patterns
// and working directories through validation: it must never panic, every rejection
// must be a coded *Error that does not leak the resolved root, and whatever passes must
// satisfy the rules validation enforces.
func FuzzValidate(f *testing.F) {
	f.Add("ls", "-la", "FOO", "*_TOKEN", "sub")
	f.Add("ls; rm -rf /", "", "1BAD", "[", "../..")
	f.Add("", "\x00", "", "", "/etc")
	f.Add("/bin/echo", "$(id)", "A=B", "AWS_*", "sub/../..")
	f.Add("./x y", "a", "_ok", "?", "sub/link")
	root := f.TempDir()
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, exe, arg, envName, pattern, dir string) {
		c := Command{Argv: []string{exe, arg}, Root: root, Dir: dir,
			Env: Env{Exclude: []string{pattern}, Overrides: map[string]string{envName: "v"}}}
		err := c.Validate()
		if err == nil {
			if checkExecutableName("executable", exe) != nil || strings.ContainsRune(arg, 0) {
				t.Fatalf("accepted a bad argv %q", c.Argv)
			}
			if !validEnvName(envName) {
				t.Fatalf("accepted env name %q", envName)
			}
			p, perr := c.prepare()
			if perr != nil || !within(realRoot, p.dir) {
				t.Fatalf("accepted working dir %q outside the root (%v)", dir, perr)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Code == "" || e.Message == "" {
			t.Fatalf("rejection is not a coded error: %#v", err)
		}
		if !strings.Contains(dir, realRoot) && !strings.Contains(exe, realRoot) &&
			strings.Contains(e.Message, realRoot) {
			t.Fatalf("message leaks the resolved root: %s", e.Message)
		}
	})
}

// FuzzEnvBuild builds child environments from arbitrary host environments and
// patterns: every entry must be NAME=VALUE, names unique, never-pass names absent and
// overrides present.
func FuzzEnvBuild(f *testing.F) {
	f.Add("PATH=/bin\nGH_TOKEN=x\nA=1\nA=2\n=bad\nnoequals", "*_TOKEN", "A", "GH_*", false)
	f.Add("X=1", "*", "", "", true)
	f.Fuzz(func(t *testing.T, host, exclude, include, deny string, replace bool) {
		e := Env{Host: strings.Split(host, "\n"), Exclude: []string{exclude}, Include: []string{include},
			Deny: []string{deny}, Overrides: map[string]string{"CUFF_FUZZ": "1"}}
		if replace {
			e.Mode = EnvReplace
		}
		if e.check() != nil {
			return
		}
		env, removed := e.build("/w")
		seen := map[string]bool{}
		for _, kv := range env {
			k, _, ok := strings.Cut(kv, "=")
			if !ok || k == "" || seen[k] {
				t.Fatalf("bad or duplicate entry %q in %q", kv, env)
			}
			seen[k] = true
			if k != "CUFF_FUZZ" && matchAny(e.Deny, k) {
				t.Fatalf("never-pass variable %q passed", k)
			}
		}
		if !seen["CUFF_FUZZ"] {
			t.Fatal("override missing")
		}
		for _, k := range removed {
			if seen[k] {
				t.Fatalf("%q both removed and passed", k)
			}
		}
	})
}
