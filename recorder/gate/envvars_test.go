package gate

import "testing"

func TestClassifyEnv(t *testing.T) {
	cases := []struct {
		name, value string
		want        envKind
	}{
		{"LANG", "C", envPlain},
		{"LC_ALL", "C", envPlain},
		{"NODE_ENV", "test", envPlain},
		{"DATABASE_URL", "postgres://localhost/x", envPlain},
		{"FOO", "bar", envPlain},
		{"LD_PRELOAD", "/tmp/x.so", envRisky},
		{"DYLD_INSERT_LIBRARIES", "x", envRisky},
		{"BASH_ENV", "x", envRisky},
		{"PATH", "/tmp", envRisky},
		{"GIT_DIR", "/tmp/x", envRisky},
		{"GIT_CONFIG_COUNT", "1", envRisky},
		{"GIT_AUTHOR_NAME", "me", envPlain},
		{"NODE_OPTIONS", "--require x", envRisky},
		{"https_proxy", "http://x", envRisky},
		{"PYTHONSTARTUP", "x.py", envRisky},
		{"PYTHONUNBUFFERED", "1", envPlain},
		{"GOFLAGS", "-mod=readonly -count=1", envPlain},
		{"GOFLAGS", "-mod=mod", envRisky},
		{"GOPROXY", "https://evil.example", envRisky},
		{"GOPROXY", "off", envPlain},
		{"GIT_TRACE", "/tmp/x", envFile},
		{"GIT_TRACE", "1", envPlain},
		{"GIT_TRACE2_EVENT", "af_unix:/x", envFile},
		{"SOMETOOL_LOG_FILE", "x.log", envFile},
		{"CARGO_TARGET_DIR", "/x", envFile},
		{"GIT_DIR", ".x", envRisky},
		{"GOFLAGS", "-toolexec=x", envRisky},
		{"GOTOOLCHAIN", "local", envPlain},
		{"GOTOOLCHAIN", "go1.30", envRisky},
		{"CFLAGS", "-O2 -g -Wall", envPlain},
		{"CFLAGS", "-fplugin=x.so", envRisky},
		{"RUSTFLAGS", "-C linker=x", envRisky},
		{"GIT_SSH_COMMAND", "ssh", envCommand},
		{"EDITOR", "vim", envCommand},
		{"MY_TOOL_COMMAND", "x", envCommand},
		{"CC", "gcc", envCommand},
		{"TAR_OPTIONS", "--to-command=x", envRisky},
	}
	for _, tc := range cases {
		if got, _ := classifyEnv(tc.name, tc.value); got != tc.want {
			t.Errorf("%s=%s: %d, want %d", tc.name, tc.value, got, tc.want)
		}
	}
	g := testGate(t, Options{})
	a := &analysis{g: g, cwd: g.dir}
	for value, want := range map[string]envKind{"src": envLoad, ".:lib": envLoad, "/tmp/x": envRisky, "src:../x": envRisky} {
		if got, _ := a.classifyEnv("PYTHONPATH", value, true); got != want {
			t.Errorf("PYTHONPATH=%s: %d, want %d", value, got, want)
		}
	}
	if got, _ := a.classifyEnv("PATH", "$PATH:/opt/bin", false); got != envPlain {
		t.Errorf("appending to PATH: %d", got)
	}
	if got, _ := a.classifyEnv("PATH", "/tmp:$PATH", false); got != envRisky {
		t.Errorf("prepending to PATH: %d", got)
	}
}
