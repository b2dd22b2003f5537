package main

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/trust"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/scripts"
	"github.com/cuff-dev/cuff/session"
	"github.com/spf13/cobra"
)

// Permissions of what `cuff init` creates.
const (
	initDirPerm       = 0o700
	initFilePerm      = 0o600
	initGitignorePerm = 0o644
)

// initCommand is `cuff init`.
func (a *app) initCommand() *cobra.Command {
	var force, print bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Set up cuff in this project: .cuff/, a commented settings.yml, .gitignore, script discovery",
		Long: `Create .cuff/ in the project root (the git root, else the working directory), write
.cuff/settings.yml with every key and its default (kept if it exists, unless --force),
add .cuff/ to .gitignore, and look for scripts that agents could run as tools: the
patterns that match are written into scripts.patterns, and scripts that need a look
first (sensitive names, binary or world-writable files) go into scripts.exclude.`,
		Example: `  cuff init
  cuff init --force       # rewrite settings.yml; the old one is kept as a backup
  cuff init --print       # print the default settings without writing anything`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if print {
				_, err := a.stdout.Write(settings.DefaultYAML())
				return err
			}
			return a.runInit(force)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing .cuff/settings.yml (a timestamped backup is kept)")
	cmd.Flags().BoolVar(&print, "print", false, "print the default settings to stdout and write nothing")
	return cmd
}

// initStoreDir is the .cuff directory init sets up: --dir or $CUFF_DIR,
// else the one every command finds (session.Locate).
func (a *app) initStoreDir() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	explicit := a.dir
	if explicit == "" {
		explicit = a.getenv("CUFF_DIR")
	}
	return session.Locate(explicit, cwd)
}

func (a *app) runInit(force bool) error {
	dir, err := a.initStoreDir()
	if err != nil {
		return err
	}
	root := filepath.Dir(dir)
	if err := initPrivateDir(dir); err != nil {
		return err
	}
	w := a.stdout
	fmt.Fprintf(w, "cuff is set up in %s\n", dir)

	disc, derr := scripts.Discover(root)
	settingsFile := settings.ProjectFile(dir)
	shown := initRel(root, settingsFile)
	existing, statErr := os.Stat(settingsFile)
	var exposed bool // whether the written settings expose the discovered scripts
	switch {
	case statErr == nil && !force:
		if existing.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(settingsFile, initFilePerm)
		}
		fmt.Fprintf(w, "  kept %s (use --force to replace it; the old file is kept as a backup)\n", shown)
	default:
		data := settings.DefaultYAML()
		if derr == nil && disc.Applicable {
			review := make([]string, len(disc.Review))
			for i, r := range disc.Review {
				review[i] = scripts.QuotePattern(r)
			}
			data, exposed = initSettingsWithScripts(data, disc.Patterns, review)
		}
		backup := ""
		if statErr == nil {
			backup = settingsFile + "." + time.Now().UTC().Format("20060102-150405") + ".bak"
			if err := os.Rename(settingsFile, backup); err != nil {
				return fmt.Errorf("back up %s: %w", shown, err)
			}
		}
		if err := initWriteFile(settingsFile, data); err != nil {
			return err
		}
		// What init writes, the person who runs it trusts (cuff trust).
		if err := trust.Update(a.stateDir(), dir, trust.SettingsFile, data, true, time.Now()); err != nil {
			fmt.Fprintf(a.stderr, "cuff: warning: %v; run 'cuff trust' to let its settings apply\n", err)
		}
		if backup != "" {
			fmt.Fprintf(w, "  replaced %s (the old file is %s)\n", shown, initRel(root, backup))
		} else {
			fmt.Fprintf(w, "  wrote %s (every key with its default; 'cuff init --print' shows them)\n", shown)
		}
	}
	if msg, err := initGitignore(root, dir); err != nil {
		fmt.Fprintf(a.stderr, "cuff: warning: %v\n", err)
	} else {
		fmt.Fprintf(w, "  %s\n", msg)
	}

	fmt.Fprintln(w, "\nDiscovering scripts...")
	switch {
	case derr != nil:
		fmt.Fprintf(w, "  [!] scripts: %v\n", derr)
	case !disc.Applicable:
		fmt.Fprintf(w, "  [-] scripts: %s (looked for %s)\n", disc.Description, strings.Join(scripts.DiscoveryPatterns(), ", "))
	default:
		fmt.Fprintf(w, "  [+] scripts: %s\n", disc.Description)
		initFindings(w, disc.Warnings, disc.Conflicts)
		if exposed {
			fmt.Fprintf(w, "      Exposed to agents: scripts.patterns: %s\n", scriptPatternList(disc.Patterns))
			if len(disc.Review) > 0 {
				fmt.Fprintf(w, "      Excluded until reviewed (remove from scripts.exclude to expose): %s\n", strings.Join(disc.Review, ", "))
			}
		} else if statErr != nil || force { // a kept settings file is reported on below
			fmt.Fprintf(w, "      To expose them, set scripts.patterns: %s in %s\n", scriptPatternList(disc.Patterns), shown)
		}
	}
	if statErr == nil && !force {
		a.initConfiguredScripts(w, root, settingsFile, disc)
	}

	fmt.Fprint(w, `
What next:
  cuff exec -- go test ./...     run a command and record it (exit code, output, duration)
  cuff                           browse the recorded sessions
  cuff hook install claude       record and gate Claude Code's tool calls in this project
  cuff scripts list              see the scripts agents can run as tools
`)
	return nil
}

// initConfiguredScripts reports on the scripts an existing settings file
// exposes, with their warnings, when they are not what discovery found.
func (a *app) initConfiguredScripts(w io.Writer, root, file string, disc *scripts.Discovery) {
	cfg, err := settings.Load(file, settings.UserFile(a.getenv))
	if err != nil {
		fmt.Fprintf(w, "  [!] %s: %v\n", initRel(root, file), err)
		return
	}
	if len(cfg.Scripts.Patterns) == 0 {
		if disc != nil && disc.Applicable && len(disc.Patterns) > 0 {
			fmt.Fprintf(w, "      To expose them, set scripts.patterns: %s in %s\n", scriptPatternList(disc.Patterns), initRel(root, file))
		}
		return
	}
	set, err := scripts.Load(scripts.FromSettings(root, cfg.Scripts))
	if err != nil {
		fmt.Fprintf(w, "  [!] configured scripts: %v\n", err)
		return
	}
	fmt.Fprintf(w, "  [+] configured scripts (scripts.patterns %s): %d exposed\n", scriptPatternList(cfg.Scripts.Patterns), len(set.Scripts))
	var fresh []scripts.Warning
	for _, wr := range set.Warnings {
		if disc == nil || !slices.Contains(disc.Warnings, wr) {
			fresh = append(fresh, wr)
		}
	}
	var conflicts []scripts.Conflict
	for _, c := range set.Conflicts {
		if disc == nil || !slices.ContainsFunc(disc.Conflicts, func(d scripts.Conflict) bool { return d.String() == c.String() }) {
			conflicts = append(conflicts, c)
		}
	}
	initFindings(w, fresh, conflicts)
}

// initFindings prints discovery warnings and name conflicts.
func initFindings(w io.Writer, warns []scripts.Warning, conflicts []scripts.Conflict) {
	for _, x := range warns {
		fmt.Fprintf(w, "      Warning: %s\n", x.Message)
	}
	for _, c := range conflicts {
		fmt.Fprintf(w, "      Conflict: %s\n", c)
	}
}

// initSettingsWithScripts fills scripts.patterns and scripts.exclude into the
// default settings text. ok is false (and data unchanged) if the result does
// not load back to exactly those lists.
func initSettingsWithScripts(data []byte, patterns, exclude []string) (out []byte, ok bool) {
	text := string(data)
	i := strings.Index(text, "\nscripts:\n")
	if i < 0 {
		return data, false
	}
	head, tail := text[:i], text[i:]
	tail, n1 := initReplaceOnce(tail, "\n  patterns: []\n", "\n  patterns: "+scriptPatternList(patterns)+"\n")
	n2 := true
	if len(exclude) > 0 {
		tail, n2 = initReplaceOnce(tail, "\n  exclude: []\n", "\n  exclude: "+scriptPatternList(exclude)+"\n")
	}
	if !n1 || !n2 {
		return data, false
	}
	out = []byte(head + tail)
	cfg, err := settings.Parse(settings.FileName, out)
	if err != nil || !slices.Equal(cfg.Scripts.Patterns, patterns) || !slices.Equal(cfg.Scripts.Exclude, exclude) {
		return data, false
	}
	return out, true
}

func initReplaceOnce(s, old, repl string) (string, bool) {
	i := strings.Index(s, old)
	if i < 0 {
		return s, false
	}
	return s[:i] + repl + s[i+len(old):], true
}

// initPrivateDir creates dir (0700), or tightens an existing looser one.
func initPrivateDir(dir string) error {
	if err := os.MkdirAll(dir, initDirPerm); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory; move it away and run cuff init again", dir)
	}
	if fi.Mode().Perm() != initDirPerm {
		if err := os.Chmod(dir, initDirPerm); err != nil {
			return fmt.Errorf("make %s private (0700): %w", dir, err)
		}
	}
	return nil
}

// initWriteFile writes a 0600 file atomically (temp file, then rename).
func initWriteFile(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := os.Chmod(f.Name(), initFilePerm); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// initGitignore makes the project's .gitignore ignore the store, creating
// the file if needed and never adding the line twice.
func initGitignore(root, dir string) (string, error) {
	rel, err := filepath.Rel(root, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is outside %s; not adding it to .gitignore", dir, root)
	}
	entry := filepath.ToSlash(rel) + "/"
	p := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read .gitignore: %w", err)
	}
	bare := strings.TrimSuffix(entry, "/")
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if slices.Contains([]string{bare, entry, "/" + bare, "/" + entry, entry + "*", entry + "**", "/" + entry + "*", "/" + entry + "**"}, line) {
			return ".gitignore already ignores " + entry, nil
		}
	}
	var add bytes.Buffer
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add.WriteByte('\n')
	}
	add.WriteString("# cuff's recordings, logs and settings\n" + entry + "\n")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, initGitignorePerm)
	if err != nil {
		return "", fmt.Errorf("update .gitignore: %w", err)
	}
	if _, err := f.Write(add.Bytes()); err != nil {
		f.Close()
		return "", fmt.Errorf("update .gitignore: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("update .gitignore: %w", err)
	}
	if len(data) == 0 {
		return "created .gitignore with " + entry, nil
	}
	return "added " + entry + " to .gitignore", nil
}

// initRel shows p relative to root when it lies inside it.
func initRel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
