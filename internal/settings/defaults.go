package settings

import _ "embed"

//go:embed default.yml
var defaultYAML []byte

// DefaultYAML returns a commented settings file that spells out every key
// with its default value, for `cuff init`. It loads back to Defaults().
func DefaultYAML() []byte {
	return append([]byte(nil), defaultYAML...)
}
