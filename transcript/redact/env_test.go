package redact

import (
	"maps"
	"os"
	"testing"
)

func TestSensitiveEnv(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "STRIPE_KEY": true, "APP_SECRET": true, "NPM_TOKEN": true,
		"DB_PASSWORD": true, "AWS_REGION": true, "GITHUB_ACTIONS": true, "OPENAI_BASE_URL": true,
		"ANTHROPIC_MODEL": true, "github_token": true, "TOKEN": true,
		"PATH": false, "HOME": false, "KEYBOARD": false, "TOKENIZER_MODE": false, "SHELL": false,
	} {
		if got := SensitiveEnv(name); got != want {
			t.Errorf("SensitiveEnv(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEnvFilter(t *testing.T) {
	f, err := NewEnvFilter([]string{"PATH", "HOME", "LC_*", "AWS_REGION", "MY_*"})
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/dev", "LC_ALL=C", "AWS_REGION=eu-west-1",
		"AWS_SECRET_ACCESS_KEY=x", "MY_TOKEN=x", "MY_SETTING=1", "EDITOR=vi",
		"GITHUB_TOKEN=x", "OPENAI_API_KEY=x", "noequals", "=empty", "HOME=/override",
	}
	want := map[string]string{
		"PATH": "/usr/bin", "HOME": "/override", "LC_ALL": "C", "AWS_REGION": "eu-west-1", "MY_SETTING": "1",
	}
	if got := f.Filter(environ); !maps.Equal(got, want) {
		t.Errorf("Filter:\n got %v\nwant %v", got, want)
	}
}

func TestEnvFilterOnProcessEnvironment(t *testing.T) {
	t.Setenv("CUFF_TEST_VISIBLE", "yes")
	t.Setenv("CUFF_TEST_TOKEN", "hidden")
	f, err := NewEnvFilter([]string{"CUFF_TEST_*"})
	if err != nil {
		t.Fatal(err)
	}
	got := f.Filter(os.Environ())
	if got["CUFF_TEST_VISIBLE"] != "yes" {
		t.Errorf("allowlisted variable missing: %v", got)
	}
	if _, ok := got["CUFF_TEST_TOKEN"]; ok {
		t.Error("a *_TOKEN variable was captured through a glob")
	}
	if len(got) != 1 {
		t.Errorf("captured more than allowlisted: %v", got)
	}
}

func TestEnvFilterBadGlob(t *testing.T) {
	_, err := NewEnvFilter([]string{"PATH", "LC_[*"})
	want := `environment allowlist entry "LC_[*" is not a valid glob: syntax error in pattern`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
