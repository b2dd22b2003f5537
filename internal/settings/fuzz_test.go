package settings

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func FuzzLoad(f *testing.F) {
	f.Add(DefaultYAML())
	f.Add([]byte(""))
	f.Add([]byte("recording:\n  session_mode: weekly\n"))
	f.Add([]byte("plugins:\n  bash_recorder:\n    config:\n      execution: {inherit_env: false, env_overrides: {CI: \"true\"}}\n"))
	f.Add([]byte("plugins:\n  scripts:\n    config:\n      patterns: [\"scripts/*.sh\"]\n      interpreters: {\".py\": python3}\n"))
	f.Add([]byte("execution:\n  max_output_kb: 1024\n  redaction: {patterns: ['sk-[a-z]+']}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("scripts:\n  environment: &e {A: b}\nexecution: {environment: {overrides: *e}}\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("\t- ["))
	f.Add([]byte("recording: {max_output_size: 1.5MiB, retention_days: 9223372036854775808}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yml", data)
		if err != nil {
			if s != nil {
				t.Fatal("both settings and an error")
			}
			for _, e := range unjoin(err) {
				var se *Error
				if !errors.As(e, &se) {
					t.Fatalf("error without position: %v", e)
				}
				if se.File != "fuzz.yml" || se.Line < 0 || se.Msg == "" {
					t.Fatalf("malformed error: %+v", se)
				}
			}
			return
		}
		checkInvariants(t, s)
	})
}

// unjoin splits an errors.Join result into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// checkInvariants asserts what validation promises about loaded settings.
func checkInvariants(t *testing.T, s *Settings) {
	t.Helper()
	r, e := s.Recording, s.Execution
	switch {
	case r.MaxOutputSize <= 0:
		t.Fatalf("max_output_size %d", r.MaxOutputSize)
	case r.RetentionDays < 0:
		t.Fatalf("retention_days %d", r.RetentionDays)
	case e.DefaultTimeout <= 0 || e.MaxTimeout <= 0 || e.DefaultTimeout > e.MaxTimeout:
		t.Fatalf("timeouts %v / %v", e.DefaultTimeout, e.MaxTimeout)
	case e.MaxConcurrent < 1 || e.Limits.MemoryMB < 0 || e.Limits.CPUSeconds < 0:
		t.Fatalf("execution %+v", e)
	case s.Approvals.Timeout <= 0 || s.Gate.Cop.Timeout <= 0 || s.Scripts.DefaultTimeout <= 0 || s.Scripts.CacheTTL < 0:
		t.Fatalf("timeouts %+v %+v %+v", s.Approvals, s.Gate.Cop, s.Scripts)
	case strings.TrimSpace(e.Shell) == "" || strings.TrimSpace(r.Directory) == "":
		t.Fatalf("empty shell or directory")
	}
	enums := []struct {
		got   string
		valid []string
	}{
		{string(r.SessionMode), []string{"per_conversation", "per_day", "continuous"}},
		{string(r.CaptureOutput), []string{"all", "stdout", "stderr", "none"}},
		{string(e.Environment.Mode), []string{"inherit", "replace", "merge"}},
		{string(s.Gate.Mode), []string{"strict", "taint"}},
		{string(s.Approvals.NoWatcher), []string{"allow", "ask", "deny"}},
		{string(s.Approvals.MCPNoWatcher), []string{"allow", "ask", "deny"}},
		{string(s.TUI.Theme), []string{"auto", "dark", "light"}},
	}
	for _, en := range enums {
		if !slices.Contains(en.valid, en.got) {
			t.Fatalf("enum value %q not in %v", en.got, en.valid)
		}
	}
	for _, p := range s.Redaction.Patterns {
		if msg := checkRegexp(p); msg != "" {
			t.Fatalf("pattern %q %s", p, msg)
		}
	}
}
