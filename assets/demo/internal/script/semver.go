package script

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// semver is a parsed semantic version of the demo project. The story's
// expected test results are computed with it, so that what the session shows
// (which cases fail before the fix, how `verkit sort` orders its input) is
// what the code in the session would really do.
type semver struct {
	major, minor, patch uint64
	pre, build          []string
}

// parseSemver parses s strictly by the Semantic Versioning 2.0.0 grammar.
func parseSemver(s string) (semver, error) {
	var v semver
	rest, build, hasBuild := strings.Cut(s, "+")
	if hasBuild {
		ids, err := identifiers(build, false)
		if err != nil {
			return v, fmt.Errorf("build metadata of %q: %w", s, err)
		}
		v.build = ids
	}
	core, pre, hasPre := strings.Cut(rest, "-")
	if hasPre {
		ids, err := identifiers(pre, true)
		if err != nil {
			return v, fmt.Errorf("pre-release of %q: %w", s, err)
		}
		v.pre = ids
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("%q: want MAJOR.MINOR.PATCH", s)
	}
	nums := [3]*uint64{&v.major, &v.minor, &v.patch}
	for i, p := range parts {
		n, err := numeric(p)
		if err != nil {
			return v, fmt.Errorf("%q: %w", s, err)
		}
		*nums[i] = n
	}
	return v, nil
}

// identifiers splits dot-separated identifiers and checks each one.
func identifiers(s string, pre bool) ([]string, error) {
	ids := strings.Split(s, ".")
	for _, id := range ids {
		if id == "" {
			return nil, errors.New("empty identifier")
		}
		for _, r := range id {
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
				return nil, fmt.Errorf("identifier %q has %q", id, r)
			}
		}
		if pre && isNumeric(id) {
			if _, err := numeric(id); err != nil {
				return nil, err
			}
		}
	}
	return ids, nil
}

// numeric parses a numeric identifier: digits without a leading zero.
func numeric(s string) (uint64, error) {
	if !isNumeric(s) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("%q has a leading zero", s)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	return n, nil
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// comparePrecedence orders two versions; fixed selects the corrected
// pre-release comparison, otherwise the project's original, lexical one.
func comparePrecedence(a, b semver, fixed bool) int {
	if c := cmp.Compare(a.major, b.major); c != 0 {
		return c
	}
	if c := cmp.Compare(a.minor, b.minor); c != 0 {
		return c
	}
	if c := cmp.Compare(a.patch, b.patch); c != 0 {
		return c
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		c := strings.Compare(a.pre[i], b.pre[i])
		if fixed {
			c = compareIdentifier(a.pre[i], b.pre[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.pre), len(b.pre))
}

// compareIdentifier orders two pre-release identifiers: numeric ones by
// value and below alphanumeric ones, which compare in ASCII order.
func compareIdentifier(a, b string) int {
	an, aErr := strconv.ParseUint(a, 10, 64)
	bn, bErr := strconv.ParseUint(b, 10, 64)
	switch {
	case aErr == nil && bErr == nil:
		return cmp.Compare(an, bn)
	case aErr == nil:
		return -1
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// compareStrings parses and compares two version strings.
func compareStrings(a, b string, fixed bool) (int, error) {
	va, err := parseSemver(a)
	if err != nil {
		return 0, err
	}
	vb, err := parseSemver(b)
	if err != nil {
		return 0, err
	}
	return comparePrecedence(va, vb, fixed), nil
}

// goLiteral writes v as the Go composite literal the project's tests use.
func (v semver) goLiteral() string {
	var fields []string
	for _, f := range []struct {
		name string
		n    uint64
	}{{"Major", v.major}, {"Minor", v.minor}, {"Patch", v.patch}} {
		if f.n != 0 {
			fields = append(fields, fmt.Sprintf("%s: %d", f.name, f.n))
		}
	}
	for _, f := range []struct {
		name string
		ids  []string
	}{{"Pre", v.pre}, {"Build", v.build}} {
		if len(f.ids) > 0 {
			fields = append(fields, fmt.Sprintf("%s: []string{%s}", f.name, quoteAll(f.ids)))
		}
	}
	return "Version{" + strings.Join(fields, ", ") + "}"
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
