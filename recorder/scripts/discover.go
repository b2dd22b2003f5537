package scripts

import (
	"fmt"
	"slices"
	"strings"
)

// WarningKind classifies a discovery warning.
type WarningKind string

// Warning kinds.
const (
	WarnSensitive     WarningKind = "sensitive"      // the name hints at secrets
	WarnBinary        WarningKind = "binary"         // the file is not text
	WarnNoShebang     WarningKind = "no_shebang"     // the interpreter is guessed
	WarnWorldWritable WarningKind = "world_writable" // anyone may change it
	WarnSymlink       WarningKind = "symlink"        // its target is checked at run time
	WarnEscape        WarningKind = "symlink_escape" // it resolves outside the base directory
	WarnUnreadable    WarningKind = "unreadable"     // it or its directory could not be read
)

// Warning is something about a script that a person should look at before
// exposing it to an agent.
type Warning struct {
	Kind WarningKind
	// Path is the script's path relative to the base directory ("" for a
	// warning about a directory).
	Path    string
	Message string
}

func (w Warning) String() string { return w.Message }

// NeedsReview reports whether the warning is about a script that should not
// be exposed before a person has looked at it: sensitive names, binary
// files, world-writable files and symlinks leading out of the base directory.
func (w Warning) NeedsReview() bool {
	switch w.Kind {
	case WarnSensitive, WarnBinary, WarnWorldWritable, WarnEscape:
		return true
	}
	return false
}

// sensitiveWarning warns about names that hint at secrets.
func sensitiveWarning(rel, name string) []Warning {
	lower := strings.ToLower(name)
	for _, w := range [...]string{"secret", "password", "credential", "key"} {
		if strings.Contains(lower, w) {
			return []Warning{{Kind: WarnSensitive, Path: rel,
				Message: fmt.Sprintf("Script '%s' may contain sensitive operations - review before enabling", rel)}}
		}
	}
	return nil
}

// DiscoveryPatterns are the common script locations that discovery checks.
func DiscoveryPatterns() []string {
	return []string{"scripts/*.sh", "scripts/*.py", "bin/*.sh", "tools/*.sh", "*.sh"}
}

// Confidence of a discovery that found scripts: lower than a Makefile's or a
// package.json's, since a loose script may not be meant as an entry point.
const discoveryConfidence = 0.8

// Discovery is what scanning a project for scripts found and suggests.
type Discovery struct {
	Applicable  bool
	Confidence  float64
	Description string // "Found 3 scripts" or "No scripts found"
	// Patterns are the discovery patterns that matched, the suggested scripts.patterns.
	Patterns []string
	// Scripts are the paths found, relative to the project, sorted.
	Scripts []string
	// Items are the tool names that would be exposed, the list tool first.
	Items     []string
	Warnings  []Warning
	Conflicts []Conflict
	// Review are the scripts whose warnings say they should be looked at
	// before they are exposed; `cuff init` suggests excluding them.
	Review []string
}

// Discover scans dir for scripts in the common locations (DiscoveryPatterns)
// and suggests a configuration for them, with warnings about scripts that
// look sensitive, are binary, have no shebang line, are world-writable or
// are symlinks, and about scripts whose tool names collide.
func Discover(dir string) (*Discovery, error) {
	d := &Discovery{Description: "No scripts found"}
	for _, p := range DiscoveryPatterns() {
		w := newWalker(dir)
		if err := w.expand(p); err != nil {
			return nil, err
		}
		if len(w.files()) > 0 {
			d.Patterns = append(d.Patterns, p)
		}
	}
	if len(d.Patterns) == 0 {
		return d, nil
	}
	set, err := Load(Config{Root: dir, Patterns: d.Patterns, ExposeListScripts: true})
	if err != nil {
		return nil, err
	}
	d.Applicable, d.Confidence = true, discoveryConfidence
	d.Scripts = set.Files()
	d.Description = fmt.Sprintf("Found %d scripts", len(d.Scripts))
	if len(d.Scripts) == 1 {
		d.Description = "Found 1 script"
	}
	d.Items = []string{ListToolName}
	for _, p := range d.Scripts {
		d.Items = append(d.Items, ToolName(p))
	}
	d.Warnings, d.Conflicts = set.Warnings, set.Conflicts
	for _, w := range set.Warnings {
		if w.NeedsReview() && w.Path != "" && !slices.Contains(d.Review, w.Path) {
			d.Review = append(d.Review, w.Path)
		}
	}
	return d, nil
}
