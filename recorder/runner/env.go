package runner

import (
	"os"
	"path"
	"slices"
	"strings"
)

// EnvMode chooses where the child's environment starts from.
type EnvMode string

// Environment modes.
const (
	// EnvInherit starts from the host environment minus Exclude (Include wins over
	// Exclude), then applies Overrides. It is the default.
	EnvInherit EnvMode = "inherit"
	// EnvMerge is accepted as a synonym of EnvInherit: overrides always apply.
	EnvMerge EnvMode = "merge"
	// EnvReplace passes only the host variables named by Include, plus Overrides.
	EnvReplace EnvMode = "replace"
	// EnvClean is a synonym of EnvReplace.
	EnvClean EnvMode = "clean"
)

// Env describes how the child's environment is built from the host's.
// Patterns are shell-style globs matched against variable names ("*_TOKEN", "AWS_*").
type Env struct {
	Mode EnvMode
	// Exclude lists patterns of host variables that are not passed on.
	Exclude []string
	// Include lists patterns of host variables that are always passed on, even when
	// excluded; in replace mode they are the only host variables passed on.
	Include []string
	// Deny lists patterns of variables that are never passed on, whatever Include says;
	// an override matching one is an error.
	Deny []string
	// Overrides are set in the child's environment on top of the rest.
	Overrides map[string]string
	// Host is the environment to start from, as KEY=VALUE entries; nil means os.Environ().
	Host []string
}

func (e *Env) check() *Error {
	switch e.Mode {
	case "", EnvInherit, EnvMerge, EnvReplace, EnvClean:
	default:
		return invalid("env.mode", "use one of inherit, merge, replace, clean",
			"unknown environment mode %q", e.Mode)
	}
	for _, set := range []struct {
		field    string
		patterns []string
	}{{"env.exclude", e.Exclude}, {"env.include", e.Include}, {"env.deny", e.Deny}} {
		for _, p := range set.patterns {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				return invalid(set.field, "use * and ? wildcards and balanced [ ] classes",
					"bad pattern %q in %s", p, set.field)
			}
		}
	}
	for _, k := range sortedKeys(e.Overrides) {
		if !validEnvName(k) {
			return invalid("env["+k+"]", "names are letters, digits and _, not starting with a digit",
				"invalid environment variable name %q", k)
		}
		if strings.ContainsRune(e.Overrides[k], 0) {
			return invalid("env["+k+"]", "remove the NUL byte from the value",
				"value of %s contains a NUL byte", k)
		}
		if matchAny(e.Deny, k) {
			return invalid("env["+k+"]", "this variable may never be passed to commands",
				"environment variable %s is on the never-pass list", k)
		}
	}
	return nil
}

// validEnvName reports whether name is a portable environment variable name.
func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// keep reports whether a host variable is passed on.
func (e *Env) keep(name string) bool {
	if matchAny(e.Deny, name) {
		return false
	}
	if matchAny(e.Include, name) {
		return true
	}
	if e.Mode == EnvReplace || e.Mode == EnvClean {
		return false
	}
	return !matchAny(e.Exclude, name)
}

// build returns the child's environment and the sorted names of host variables that
// were left out. PWD, when passed on from the host, is set to the child's directory.
func (e *Env) build(dir string) (env, removed []string) {
	host := e.Host
	if host == nil {
		host = os.Environ()
	}
	// Later entries win, as in a shell; remember each name's last value.
	last := make(map[string]string, len(host))
	order := make([]string, 0, len(host))
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(kv, 0) {
			continue
		}
		if _, seen := last[k]; !seen {
			order = append(order, k)
		}
		last[k] = v
	}
	env = make([]string, 0, len(order)+len(e.Overrides))
	for _, k := range order {
		if _, over := e.Overrides[k]; over {
			continue
		}
		if !e.keep(k) {
			removed = append(removed, k)
			continue
		}
		v := last[k]
		if k == "PWD" && dir != "" {
			v = dir
		}
		env = append(env, k+"="+v)
	}
	for _, k := range sortedKeys(e.Overrides) {
		env = append(env, k+"="+e.Overrides[k])
	}
	slices.Sort(removed)
	return env, removed
}

// lookupEnv returns the value of name in an environment list.
func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
