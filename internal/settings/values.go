package settings

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// maxAliasDepth bounds the resolution of YAML aliases that point at aliases.
const maxAliasDepth = 16

// problem is a bad value: what is wrong, at which node.
type problem struct {
	node *yaml.Node
	msg  string
}

func bad(n *yaml.Node, format string, args ...any) *problem {
	return &problem{node: n, msg: fmt.Sprintf(format, args...)}
}

// resolve follows YAML aliases to the node they stand for.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe renders a node for an error message: scalars as written
// (strings quoted), collections by kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return strconv.Quote(n.Value)
		case "!!null":
			return "null"
		}
		return n.Value
	}
	return "an unsupported value"
}

func parseBool(n *yaml.Node) (bool, *problem) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, nil
		}
	}
	return false, bad(n, "expected true or false, got %s", describe(n))
}

func parseInt(n *yaml.Node) (int64, *problem) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		var v int64
		if err := n.Decode(&v); err == nil {
			return v, nil
		}
		return 0, bad(n, "%s is too large", describe(n))
	}
	return 0, bad(n, "expected a whole number, got %s", describe(n))
}

// parseCount reads an int that must be at least min.
func parseCount(n *yaml.Node, min int64) (int, *problem) {
	v, p := parseInt(n)
	if p != nil {
		return 0, p
	}
	if v < min || v > math.MaxInt32 {
		return 0, bad(n, "must be %s, got %d", atLeast(min), v)
	}
	return int(v), nil
}

func atLeast(min int64) string {
	switch min {
	case 0:
		return "0 or more"
	case 1:
		return "a positive number"
	}
	return fmt.Sprintf("at least %d", min)
}

// parseDurationNode reads seconds (a number) or a Go duration ("90s").
func parseDurationNode(n *yaml.Node, allowZero bool) (time.Duration, *problem) {
	expected := `expected a number of seconds or a duration such as "90s" or "5m", got %s`
	if n.Kind != yaml.ScalarNode || isNull(n) || n.ShortTag() == "!!bool" {
		return 0, bad(n, expected, describe(n))
	}
	d, err := ParseDuration(n.Value)
	if err != nil {
		return 0, bad(n, expected, describe(n))
	}
	if d < 0 || (d == 0 && !allowZero) {
		if allowZero {
			return 0, bad(n, "must be 0 or more, got %s", describe(n))
		}
		return 0, bad(n, "must be positive, got %s", describe(n))
	}
	return d, nil
}

// maxSeconds keeps a number of seconds within time.Duration's range.
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

// ParseDuration reads a timeout as written in settings or on the command
// line: a number of seconds ("90", "1.5") or a Go duration ("90s", "5m").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > maxSeconds {
			return 0, fmt.Errorf("duration %q is out of range", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: use seconds (90) or a unit (90s, 5m, 1h)", s)
	}
	return d, nil
}

// sizeUnits are the suffixes ParseSize accepts, in bytes.
func sizeUnits() map[string]int64 {
	return map[string]int64{
		"": 1, "b": 1,
		"k": 1000, "kb": 1000, "m": 1000 * 1000, "mb": 1000 * 1000, "g": 1000 * 1000 * 1000, "gb": 1000 * 1000 * 1000,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
	}
}

// ParseSize reads a byte count: a number ("1000000") or a number with a
// unit ("512KB", "1MiB", "1.5 MB"); KB, MB and GB are powers of 1000,
// KiB, MiB and GiB powers of 1024.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(unicode.IsDigit(r) || r == '.') })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits()[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("invalid size %q: use bytes (1000000) or a unit (512KB, 1MiB)", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: use bytes (1000000) or a unit (512KB, 1MiB)", s)
	}
	v := f * float64(mult)
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	return int64(v), nil
}

// parseSizeNode reads a positive byte count.
func parseSizeNode(n *yaml.Node) (int64, *problem) {
	expected := `expected a number of bytes or a size such as "512KB" or "1MiB", got %s`
	if n.Kind != yaml.ScalarNode {
		return 0, bad(n, expected, describe(n))
	}
	var v int64
	switch n.ShortTag() {
	case "!!int":
		iv, p := parseInt(n)
		if p != nil {
			return 0, p
		}
		v = iv
	case "!!str":
		sv, err := ParseSize(n.Value)
		if err != nil {
			return 0, bad(n, expected, describe(n))
		}
		v = sv
	default:
		return 0, bad(n, expected, describe(n))
	}
	if v <= 0 {
		return 0, bad(n, "must be more than 0 bytes, got %s", describe(n))
	}
	return v, nil
}

// parseString reads any scalar as text; null is accepted only if nullable.
func parseString(n *yaml.Node, nullable, nonEmpty bool) (string, *problem) {
	if n.Kind == yaml.ScalarNode && isNull(n) {
		if nullable {
			return "", nil
		}
		return "", bad(n, "expected a string, got null")
	}
	if n.Kind != yaml.ScalarNode {
		return "", bad(n, "expected a string, got %s", describe(n))
	}
	if nonEmpty && strings.TrimSpace(n.Value) == "" {
		return "", bad(n, "must not be empty")
	}
	return n.Value, nil
}

func parseEnum[T ~string](n *yaml.Node, values ...T) (T, *problem) {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		for _, v := range values {
			if n.Value == string(v) {
				return v, nil
			}
		}
	}
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = string(v)
	}
	return "", bad(n, "%s is not one of %s", describe(n), strings.Join(names, ", "))
}

// parseList reads a list of strings (null is an empty list), checking each
// item.
func parseList(n *yaml.Node, check func(string) string) ([]string, *problem) {
	if isNull(n) {
		return []string{}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, bad(n, "expected a list of strings, got %s", describe(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		if item.Kind != yaml.ScalarNode || isNull(item) {
			return nil, bad(item, "item %d: expected a string, got %s", i+1, describe(item))
		}
		if check != nil {
			if msg := check(item.Value); msg != "" {
				return nil, bad(item, "item %d %q %s", i+1, item.Value, msg)
			}
		}
		out = append(out, item.Value)
	}
	return out, nil
}

// parseMap reads a mapping of strings to scalars (as text) into dst,
// keeping entries dst already has, checking each key and value.
func parseMap(n *yaml.Node, dst map[string]string, checkKey, checkValue func(string) string) (map[string]string, *problem) {
	out := make(map[string]string, len(dst))
	for k, v := range dst {
		out[k] = v
	}
	if isNull(n) {
		return out, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, "expected a mapping of names to values, got %s", describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			return nil, bad(k, "keys must be names, got %s", describe(k))
		}
		if checkKey != nil {
			if msg := checkKey(k.Value); msg != "" {
				return nil, bad(k, "key %q %s", k.Value, msg)
			}
		}
		if v.Kind != yaml.ScalarNode || isNull(v) {
			return nil, bad(v, "%s: expected a string, got %s", k.Value, describe(v))
		}
		if checkValue != nil {
			if msg := checkValue(v.Value); msg != "" {
				return nil, bad(v, "%s: value %s", k.Value, msg)
			}
		}
		out[k.Value] = v.Value
	}
	return out, nil
}

// checkGlob accepts a glob in path.Match syntax (** is allowed).
func checkGlob(p string) string {
	if strings.TrimSpace(p) == "" {
		return "is empty; expected a glob pattern"
	}
	if _, err := path.Match(p, ""); err != nil {
		return "is not a valid glob pattern"
	}
	return ""
}

// checkEnvName accepts a variable name.
func checkEnvName(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || isASCIILetter(c) || (i > 0 && c >= '0' && c <= '9')) {
			return "is not an environment variable name (letters, digits and _)"
		}
	}
	if s == "" {
		return "is empty; expected an environment variable name"
	}
	return ""
}

// checkEnvPattern accepts a variable name or a glob of names.
func checkEnvPattern(s string) string {
	if msg := checkGlob(s); msg != "" {
		return msg
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isASCIILetter(c) || c >= '0' && c <= '9' || strings.IndexByte("_*?[]!^-", c) >= 0) {
			return "is not a variable name or a glob of names such as LC_*"
		}
	}
	return ""
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// checkRegexp accepts a Go regular expression.
func checkRegexp(s string) string {
	if _, err := regexp.Compile(s); err != nil {
		return "does not compile: " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	}
	return ""
}

// checkNonEmpty rejects blank strings.
func checkNonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "is empty"
	}
	return ""
}

// checkExtension accepts a file extension such as ".py".
func checkExtension(s string) string {
	if len(s) < 2 || s[0] != '.' || strings.ContainsAny(s, `/\ `) {
		return `should be a file extension starting with a dot, such as ".py"`
	}
	return ""
}
