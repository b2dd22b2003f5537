// Package policy embeds cuff's built-in gate policy: the allow rules for
// read-only commands and local builds that apply when no project rule
// decides first.
package policy

import _ "embed"

//go:embed default.yml
var defaultPolicy string

// Default returns the built-in policy file (YAML, the .cuff/policy.yml
// format).
func Default() []byte { return []byte(defaultPolicy) }
