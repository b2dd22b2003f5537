// Package policy embeds cuff's built-in gate policy: the allow rules for
// read-only commands and local builds that apply when no project rule
// decides first.
package policy

import _ "embed"

//go:embed default.yml
var defaultPolicy string

//go:embed default.json
var defaultRules string

// Default returns the built-in policy file (YAML, the .cuff/policy.yml
// format).
func Default() []byte { return []byte(defaultPolicy) }

// DefaultRules returns the built-in policy's rules pre-parsed from
// default.yml (JSON), which loads much faster than the YAML. Regenerate it
// with `go run ./assets/policy/internal/gen > assets/policy/default.json`.
func DefaultRules() []byte { return []byte(defaultRules) }
