package settings

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxErrors bounds how many problems one Load reports.
const maxErrors = 20

// FileName is the name of a settings file, in .cuff/ and in the user's
// configuration directory.
const FileName = "settings.yml"

// ProjectFile returns the settings file of a project store (.cuff dir).
func ProjectFile(cuffDir string) string { return filepath.Join(cuffDir, FileName) }

// UserFile returns the user's settings file:
// $XDG_CONFIG_HOME/cuff/settings.yml, else ~/.config/cuff/settings.yml, or
// "" when neither variable is usable. getenv is os.Getenv outside tests.
func UserFile(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "cuff", FileName)
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "cuff", FileName)
	}
	return ""
}

// MaxFileBytes bounds what cuff reads of a settings file.
const MaxFileBytes = 4 << 20

// Load reads the user file and then the project file over the defaults:
// each key a file sets replaces the default or the user's value, so the
// project wins key by key (lists are replaced, mappings merged by entry).
// A missing file, or an empty path, is skipped. All problems found are
// returned together, each naming its file and line.
func Load(projectFile, userFile string) (*Settings, error) {
	l := newLoader()
	for _, f := range []string{userFile, projectFile} {
		if f == "" {
			continue
		}
		data, err := regular.Read(f, "settings file", MaxFileBytes, true)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.errs = append(l.errs, fmt.Errorf("read settings: %w", err))
			continue
		}
		l.parse(f, data)
	}
	return l.finish()
}

// Parse reads one settings document over the defaults; name is used in
// error messages.
func Parse(name string, data []byte) (*Settings, error) {
	l := newLoader()
	l.parse(name, data)
	return l.finish()
}

// origin is where a key was set.
type origin struct {
	line int
	key  string // as written
	file string
}

type loader struct {
	sc      *schema
	s       *Settings
	file    string
	seen    map[string]origin // canonical key -> where this file set it
	origins map[string]origin // canonical key -> where it was last set
	errs    []error
}

func newLoader() *loader {
	return &loader{sc: newSchema(), s: Defaults(), origins: map[string]origin{}}
}

func (l *loader) finish() (*Settings, error) {
	l.validate()
	if len(l.s.Sandbox.Writable) > 0 {
		l.s.Sandbox.WritableFile = l.origins["sandbox.writable"].file
	}
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return l.s, nil
}

// fail records a problem at node n.
func (l *loader) fail(n *yaml.Node, key, format string, args ...any) {
	if len(l.errs) >= maxErrors {
		return
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// parse applies one file to the settings.
func (l *loader) parse(name string, data []byte) {
	l.file, l.seen = name, map[string]origin{}
	root, err := decodeOne(data)
	if err != nil {
		l.errs = append(l.errs, yamlError(name, err))
		return
	}
	if root == nil || isNull(root) {
		return // empty file, or only comments
	}
	if root.Kind != yaml.MappingNode {
		l.fail(root, "", "expected a mapping of settings sections such as recording: and execution:, got %s", describe(root))
		return
	}
	l.section("", "", root)
}

// extraDocument reports a second YAML document in a settings file.
type extraDocument struct{ line int }

func (e *extraDocument) Error() string {
	return fmt.Sprintf("yaml: line %d: only one YAML document is allowed; remove the extra \"---\"", e.line)
}

// decodeOne parses a single YAML document and returns its root node, or
// nil when the document is empty.
func decodeOne(data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, &extraDocument{line: max(extra.Line, 1)}
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return resolve(doc.Content[0]), nil
}

// yamlError turns the parser's "yaml: line N: msg" into an Error.
func yamlError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, text
			}
		}
	}
	return &Error{File: file, Line: line, Msg: "invalid YAML: " + msg}
}

// eachPair walks a mapping node, checking that keys are plain names that
// appear once, and calls fn with each key's name and display path.
func (l *loader) eachPair(n *yaml.Node, display string, fn func(name, disp string, k, v *yaml.Node)) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		l.fail(n, display, "expected a mapping of keys, got %s", describe(n))
		return
	}
	lines := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k == nil || v == nil || k.Kind != yaml.ScalarNode || isNull(k) {
			l.fail(n.Content[i], display, "keys must be plain names, got %s", describe(n.Content[i]))
			continue
		}
		disp := joinPath(display, k.Value)
		if first, dup := lines[k.Value]; dup {
			l.fail(k, disp, "set twice (first on line %d)", first)
			continue
		}
		lines[k.Value] = k.Line
		fn(k.Value, disp, k, v)
	}
}

// section applies a mapping whose keys are under the schema path prefix.
func (l *loader) section(prefix, display string, n *yaml.Node) {
	l.eachPair(n, display, func(name, disp string, k, v *yaml.Node) {
		path := joinPath(prefix, name)
		if f, ok := l.sc.fields[path]; ok {
			l.setField(f, disp, k, v)
			return
		}
		if target, ok := l.sc.sectionAliases[path]; ok {
			l.section(target, disp, v)
			return
		}
		if _, ok := l.sc.sections[path]; ok {
			l.section(path, disp, v)
			return
		}
		if path == "plugins" {
			l.plugins(disp, v)
			return
		}
		l.unknownKey(k, disp, name, l.sc.children(prefix), true)
	})
}

// setField applies one value and remembers where it was set.
func (l *loader) setField(f field, disp string, k, v *yaml.Node) {
	if prev, ok := l.seen[f.target]; ok {
		l.fail(k, disp, "set twice: line %d already sets it as %s", prev.line, prev.key)
		return
	}
	if p := f.set(l.s, v); p != nil {
		n := p.node
		if n == v && isNull(v) {
			n = k // an empty value has no line of its own
		}
		l.fail(n, disp, "%s", p.msg)
		return
	}
	o := origin{line: k.Line, key: disp, file: l.file}
	l.seen[f.target] = o
	l.origins[f.target] = o
}

// unknownKey reports a key the schema does not have, with the closest
// known key when there is one: among its siblings, or (if elsewhere is
// set) anywhere in the schema.
func (l *loader) unknownKey(k *yaml.Node, disp, name string, siblings []string, elsewhere bool) {
	if s := suggest(name, siblings); s != "" {
		l.fail(k, disp, "unknown key (did you mean %s?)", s)
		return
	}
	if elsewhere {
		if paths := l.sc.elsewhere(name); len(paths) > 0 {
			l.fail(k, disp, "unknown key here (did you mean %s?)", strings.Join(paths, " or "))
			return
		}
	}
	l.fail(k, disp, "unknown key; expected one of %s", strings.Join(siblings, ", "))
}

// pluginNames are the seed plugin blocks cuff understands.
func pluginNames() []string { return []string{"bash_recorder", "scripts"} }

// plugins applies seed-style plugin blocks: plugins.<name>.config holds
// that seed's settings, mapped into the one schema.
func (l *loader) plugins(display string, n *yaml.Node) {
	l.eachPair(n, display, func(name, disp string, k, v *yaml.Node) {
		switch name {
		case "bash_recorder", "scripts":
			l.plugin(name, disp, v)
		default:
			if s := suggest(name, pluginNames()); s != "" {
				l.fail(k, disp, "unknown plugin (did you mean %s?)", s)
				return
			}
			l.fail(k, disp, "unknown plugin; cuff reads %s", strings.Join(pluginNames(), " and "))
		}
	})
}

func (l *loader) plugin(name, display string, n *yaml.Node) {
	meta, ok := l.s.Plugins[name]
	if !ok {
		meta = Plugin{Enabled: true}
	}
	l.eachPair(n, display, func(key, disp string, k, v *yaml.Node) {
		var p *problem
		switch key {
		case "enabled":
			meta.Enabled, p = parseBool(v)
		case "type":
			meta.Type, p = parseString(v, true, false)
		case "module":
			meta.Module, p = parseString(v, true, false)
		case "config":
			if name == "scripts" {
				l.section("scripts", disp, v)
				return
			}
			l.eachPair(v, disp, func(sec, secDisp string, sk, sv *yaml.Node) {
				if sec != "recording" && sec != "execution" {
					l.unknownKey(sk, secDisp, sec, []string{"recording", "execution"}, false)
					return
				}
				l.section(sec, secDisp, sv)
			})
			return
		default:
			l.unknownKey(k, disp, key, []string{"enabled", "type", "module", "config"}, false)
			return
		}
		if p != nil {
			l.fail(p.node, disp, "%s", p.msg)
		}
	})
	l.s.Plugins[name] = meta
}

// validate checks rules that tie keys together, once every file is read.
func (l *loader) validate() {
	e := l.s.Execution
	if e.DefaultTimeout > e.MaxTimeout {
		at, ok := l.origins["execution.default_timeout"]
		if !ok {
			at = l.origins["execution.max_timeout"]
		}
		l.errs = append(l.errs, &Error{
			File: at.file, Line: at.line, Key: at.key,
			Msg: fmt.Sprintf("execution.default_timeout (%s) is more than execution.max_timeout (%s); raise max_timeout or lower default_timeout",
				seconds(e.DefaultTimeout), seconds(e.MaxTimeout)),
		})
	}
}

// seconds renders a duration the way settings files usually write it.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}
