package workspace

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/internal/trust"
	"github.com/cuff-dev/cuff/recorder/gate"
)

// Trust is what a person trusted of a project's .cuff/policy.yml and
// .cuff/settings.yml (cuff trust), the way direnv trusts an .envrc: a
// file's text that differs from the trusted one keeps its tightenings and
// loses its loosenings until trusted.
type Trust struct {
	// Record is the trusted content, nil when nothing was ever trusted.
	Record *trust.Record
	// Current is the files' content now.
	Current trust.Current
	// Ignored lists the settings whose untrusted values are not applied.
	Ignored []settings.Ignored
	// IgnoredRules lists the policy's allow rules that are not applied.
	IgnoredRules []gate.Rule
}

// readTrust reads the trust record and the current files of dir.
func readTrust(dir, stateDir string) (*Trust, error) {
	cur, err := trust.Read(dir)
	if err != nil {
		return nil, err
	}
	return &Trust{Record: trust.Load(stateDir, dir), Current: cur}, nil
}

// matches reports whether file name's current text is the trusted one.
func (t *Trust) matches(name string) bool {
	data, present := t.Current[name]
	if !present && t.Record == nil {
		return true // nothing there, nothing to trust
	}
	return t.Record.Matches(name, data, present)
}

// settings loads the project's settings with what is untrusted left out.
func (t *Trust) settings(dir, userFile string) (*settings.Settings, error) {
	project := settings.ProjectFile(dir)
	if t.matches(trust.SettingsFile) {
		return settings.Load(project, userFile)
	}
	trusted, _, _ := t.Record.Trusted(trust.SettingsFile)
	cfg, ignored, err := settings.LoadTrusted(project, t.Current[trust.SettingsFile], trusted, userFile)
	t.Ignored = ignored
	return cfg, err
}

// Policies loads the project's policy and, when its text is not the
// trusted one, the trusted version (empty when none was trusted), for
// gate.Options.Policy and TrustedPolicy.
func (w *Workspace) Policies() (current, trusted *gate.Policy, err error) {
	t := w.Trust
	path := filepath.Join(w.Store.Dir, trust.PolicyFile)
	current, err = gate.ParsePolicy(path, t.Current[trust.PolicyFile])
	if err != nil {
		return nil, nil, err
	}
	if t.matches(trust.PolicyFile) {
		return current, nil, nil
	}
	text, _, _ := t.Record.Trusted(trust.PolicyFile)
	trusted, err = gate.ParsePolicy(path+" (as trusted)", text)
	if err != nil {
		trusted, _ = gate.NewPolicy(path+" (as trusted)", nil)
	}
	t.IgnoredRules = gate.UntrustedAllows(current, trusted)
	return current, trusted, nil
}

// Trusted reports whether every loosening in the project's files is
// trusted (Policies must have been called for the policy's part).
func (w *Workspace) Trusted() bool {
	return len(w.Trust.Ignored) == 0 && len(w.Trust.IgnoredRules) == 0
}

// TrustNote says what of the project's files waits for a person to trust
// it, and how; "" when nothing does.
func (w *Workspace) TrustNote() string {
	t := w.Trust
	if t == nil {
		return ""
	}
	if _, _, err := w.Policies(); err != nil {
		return ""
	}
	var parts []string
	if n := len(t.IgnoredRules); n > 0 {
		var ms []string
		for i, r := range t.IgnoredRules {
			if i == 3 {
				ms = append(ms, "…")
				break
			}
			ms = append(ms, fmt.Sprintf("%q", r.Match))
		}
		word := "rule"
		if n > 1 {
			word = "rules"
		}
		parts = append(parts, fmt.Sprintf("%d allow %s in policy.yml (%s)", n, word, strings.Join(ms, ", ")))
	}
	for _, i := range t.Ignored {
		parts = append(parts, "settings.yml "+i.Key+": "+i.Value)
	}
	if len(parts) == 0 {
		return ""
	}
	when := "changed since you last trusted them"
	if t.Record == nil {
		when = "have never been trusted"
	}
	return fmt.Sprintf("cuff: this project's .cuff files %s; what they loosen waits for you to trust it "+
		"(what they tighten applies now): %s. If you wrote them, run `cuff trust` in %s.", when, strings.Join(parts, "; "), w.Root())
}

// SaveTrust records the project's files, as they are now on disk, as
// trusted, and returns what was recorded.
func (w *Workspace) SaveTrust(now time.Time) (trust.Current, error) {
	cur, err := trust.Read(w.Store.Dir)
	if err != nil {
		return nil, err
	}
	if _, err := gate.ParsePolicy(filepath.Join(w.Store.Dir, trust.PolicyFile), cur[trust.PolicyFile]); err != nil {
		return nil, fmt.Errorf("not trusting a policy cuff cannot read: %w", err)
	}
	if _, err := settings.Parse(settings.ProjectFile(w.Store.Dir), cur[trust.SettingsFile]); err != nil {
		return nil, fmt.Errorf("not trusting settings cuff cannot read: %w", err)
	}
	return cur, trust.Save(w.StateDir(), w.Store.Dir, cur, now)
}
