package script

// The longer texts of the session. ‵ stands for a backtick (see md); the
// ones passed through fmt.Sprintf have their verbs documented.

// issueText is `gh issue view 42` as gh prints it to a pipe.
const issueText = "title:\tsort puts 1.4.0-rc.10 before 1.4.0-rc.2\n" +
	"state:\tOPEN\nauthor:\tjkowalski\nlabels:\tbug\ncomments:\t1\nassignees:\t\nprojects:\t\nmilestone:\t\nnumber:\t42\n--\n" +
	"Our release script uses `verkit sort` to pick the newest tag. Since we passed ten release candidates it picks the wrong one:\n\n" +
	"    $ verkit sort 1.4.0-rc.9 1.4.0-rc.10 1.4.0-rc.2\n    1.4.0-rc.10\n    1.4.0-rc.2\n    1.4.0-rc.9\n\n" +
	"Expected rc.2, rc.9, rc.10. Same with alpha.9 and alpha.10. verkit v0.6.1, go1.25.5 linux/amd64.\n"

// specSummary is what WebFetch answered about the spec's precedence rules.
const specSummary = `Semantic Versioning 2.0.0, item 11 (precedence):

1. Precedence is decided by comparing major, minor, patch and pre-release, in that order. Build metadata plays no part.
2. Major, minor and patch compare numerically.
3. With equal major, minor and patch, a pre-release has lower precedence than the normal version: ‵1.0.0-alpha < 1.0.0‵.
4. Two pre-releases of the same version compare their dot-separated identifiers from left to right until one differs:
   - identifiers of digits only compare **numerically**;
   - identifiers with letters or hyphens compare lexically in ASCII order;
   - a numeric identifier always has lower precedence than an alphanumeric one;
   - if all shared identifiers are equal, the longer list has higher precedence.

The page's example chain: 1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-alpha.beta < 1.0.0-beta < 1.0.0-beta.2 < 1.0.0-beta.11 < 1.0.0-rc.1 < 1.0.0.

So ‵rc.2 < rc.10‵, because 2 < 10 as numbers.`

// rootCause is the agent's diagnosis, before it writes the regression test.
const rootCause = `## Root cause

The spec confirms it. ‵comparePrerelease‵ in ‵version/compare.go‵ compares every identifier as a string:

‵‵‵go
for i := 0; i < len(a) && i < len(b); i++ {
	if c := strings.Compare(a[i], b[i]); c != 0 {
		return c
	}
}
‵‵‵

Measured against the spec's rules:

1. **Numeric identifiers must compare by value.** As strings, ‵"10" < "2"‵, so ‵rc.10‵ sorts before ‵rc.2‵.
2. **Numeric identifiers rank below alphanumeric ones.** Today that holds only by accident: digits sort before letters in ASCII.

## Plan

- Add regression cases to ‵TestCompare‵ and watch them fail.
- Replace ‵strings.Compare‵ with a ‵compareIdentifier‵ that follows the spec.
- Run the whole suite, then a larger corpus test and a short fuzz run.

Adding the cases now:`

// subReport is the Explore agent's report. Verbs: the short hash, subject
// and date of the commit that added compare.go.
const subReport = `## Callers of the version ordering

| caller | use |
|---|---|
| ‵cmd/verkit/sort.go:31‵ | ‵verkit sort‵: ‵slices.SortStableFunc(vs, version.Compare)‵, the command from issue #42 |
| ‵cmd/verkit/latest.go:22‵ | ‵verkit latest‵ keeps the maximum with ‵version.Less‵: same bug, it reports ‵rc.9‵ as newer than ‵rc.10‵ |
| ‵internal/changelog/changelog.go:58‵ | sorts releases newest first with ‵version.Compare‵ |

None of them relies on the string order: all three want spec precedence.

## History

‵strings.Compare‵ has been in ‵comparePrerelease‵ since ‵version/compare.go‵ was added in %s "%s" (%s). No later commit touched that loop.

## Test data

No golden file, text fixture or JSON in the repository contains a pre-release number of two or more digits, so fixing the order changes no expected output.`

// summary is the agent's closing message. Verbs: regression cases, how
// many failed before the fix, corpus pairs, corpus versions.
const summary = `## Fixed: pre-release numbers sort by value

**Cause.** ‵comparePrerelease‵ compared identifiers with ‵strings.Compare‵, so ‵1.4.0-rc.10‵ sorted before ‵1.4.0-rc.2‵. The spec says identifiers of digits compare numerically and rank below alphanumeric ones.

**Fix.** A new ‵compareIdentifier‵ in ‵version/compare.go‵:

‵‵‵go
func compareIdentifier(a, b string) int {
	an, aErr := strconv.ParseUint(a, 10, 64)
	bn, bErr := strconv.ParseUint(b, 10, 64)
	switch {
	case aErr == nil && bErr == nil:
		return cmp.Compare(an, bn)
	case aErr == nil:
		return -1 // numeric < alphanumeric
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}
‵‵‵

This fixes ‵verkit sort‵ and ‵verkit latest‵, which share ‵version.Compare‵.

### Tests
- %d regression cases in ‵TestCompare‵: %d failed before the fix, all pass now.
- ‵TestCompareCorpus‵: %s adjacent pairs of %s versions, checked both ways.
- ‵FuzzCompare‵ checks antisymmetry. A 60 s run found nothing; it ended at the tool's time limit, so run it with ‵-fuzztime‵.
- ‵go test ./...‵ passes.

### Not done
- **Nothing is committed or pushed.** You denied the push, so the changes are only in the working tree:
  - ‵version/compare.go‵
  - ‵version/version_test.go‵
  - ‵version/precedence_test.go‵ (new)
- When the diff looks right to you: ‵git add version/ && git commit‵, then push ‵fix/prerelease-order‵ and open the PR.`
