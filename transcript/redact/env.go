package redact

import (
	"fmt"
	"path"
	"strings"
)

// SensitiveEnv reports whether an environment variable name is one that is
// never recorded unless allowlisted by its exact name: *_KEY, *_SECRET,
// *_TOKEN, *_PASSWORD (and a few close relatives) and the AWS_*, GITHUB_*,
// OPENAI_* and ANTHROPIC_* families. The check ignores case.
func SensitiveEnv(name string) bool {
	n := strings.ToUpper(name)
	for _, prefix := range [...]string{"AWS_", "GITHUB_", "OPENAI_", "ANTHROPIC_"} {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	for _, word := range [...]string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIALS"} {
		if n == word || strings.HasSuffix(n, "_"+word) {
			return true
		}
	}
	// PASS and PWD name a password as a segment (DB_PASS, MYSQL_PWD); PWD
	// alone is the working directory.
	return n == "PASS" || strings.HasSuffix(n, "_PASS") || strings.HasSuffix(n, "_PWD") || SecretKey(name)
}

// EnvFilter decides which environment variables a recording may capture.
// A variable is captured when its name is on the allowlist, or matches an
// allowlist glob (such as "LC_*") and is not sensitive (see SensitiveEnv).
type EnvFilter struct {
	exact map[string]bool
	globs []string
}

// NewEnvFilter builds a filter from allowlist entries: exact names, or
// globs using *, ? and [ ] as in path.Match.
func NewEnvFilter(allowlist []string) (*EnvFilter, error) {
	f := &EnvFilter{exact: make(map[string]bool, len(allowlist))}
	for _, entry := range allowlist {
		if !strings.ContainsAny(entry, "*?[") {
			f.exact[entry] = true
			continue
		}
		if _, err := path.Match(entry, ""); err != nil {
			return nil, fmt.Errorf("environment allowlist entry %q is not a valid glob: %w", entry, err)
		}
		f.globs = append(f.globs, entry)
	}
	return f, nil
}

// Allowed reports whether the variable name may be captured.
func (f *EnvFilter) Allowed(name string) bool {
	if f.exact[name] {
		return true
	}
	if SensitiveEnv(name) {
		return false
	}
	for _, g := range f.globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// Filter returns the allowed variables of an environment given as
// "NAME=value" entries (os.Environ's form). Entries without '=' are
// skipped; a later entry for the same name wins.
func (f *EnvFilter) Filter(environ []string) map[string]string {
	out := make(map[string]string)
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !f.Allowed(name) {
			continue
		}
		out[name] = value
	}
	return out
}
