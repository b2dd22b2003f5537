package export

import (
	"encoding/json"
	"strings"
)

// maxDiffCells bounds the work of a line diff (old lines × new lines);
// beyond it the diff shows all old lines removed and all new lines added.
const maxDiffCells = 4 << 20

// EditDiff recognises a tool call that changes a file — Claude Code's Edit,
// MultiEdit and Write, the text editor tool's str_replace and create, Codex's
// apply_patch — and returns the file it changes and the change as diff
// lines ("-old", "+new", " same"). ok is false for any other call.
func EditDiff(tool string, input json.RawMessage) (path, diff string, ok bool) {
	var in struct {
		FilePath string  `json:"file_path"`
		Path     string  `json:"path"`
		OldStr   *string `json:"old_str"`
		NewStr   *string `json:"new_str"`
		Content  *string `json:"content"`
		FileText *string `json:"file_text"`
		Command  string  `json:"command"`
		Input    *string `json:"input"`
		Patch    *string `json:"patch"`
		Edits    []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(input, &raw) != nil || json.Unmarshal(input, &in) != nil {
		return "", "", false
	}
	oldString, newString := stringField(raw, "old_string"), stringField(raw, "new_string")
	path = in.FilePath
	if path == "" {
		path = in.Path
	}
	name := strings.ToLower(tool)
	switch {
	case name == "apply_patch" || (name == "shell" && in.Patch != nil):
		p := in.Input
		if p == nil {
			p = in.Patch
		}
		if p == nil {
			return "", "", false
		}
		return patchPath(*p), *p, true
	case len(in.Edits) > 0:
		var b strings.Builder
		for i, e := range in.Edits {
			if i > 0 {
				b.WriteString("…\n")
			}
			b.WriteString(LineDiff(e.OldString, e.NewString))
		}
		return path, b.String(), true
	case oldString != nil && newString != nil:
		return path, LineDiff(*oldString, *newString), true
	case in.OldStr != nil && in.NewStr != nil:
		return path, LineDiff(*in.OldStr, *in.NewStr), true
	case name == "write" && in.Content != nil:
		return path, LineDiff("", *in.Content), true
	case in.Command == "create" && in.FileText != nil:
		return path, LineDiff("", *in.FileText), true
	}
	return "", "", false
}

func stringField(raw map[string]json.RawMessage, key string) *string {
	v, ok := raw[key]
	if !ok {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil
	}
	return &s
}

// patchPath finds the first file an apply_patch patch names.
func patchPath(patch string) string {
	for _, l := range strings.Split(patch, "\n") {
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "+++ b/", "+++ "} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				return strings.TrimSpace(rest)
			}
		}
	}
	return ""
}

// LineDiff compares two texts line by line and returns every line of both
// prefixed with "-" (only in old), "+" (only in new) or " " (in both), in
// the order of a longest common subsequence. Very large inputs fall back to
// all old lines removed, then all new lines added.
func LineDiff(old, new string) string {
	a, b := splitLines(old), splitLines(new)
	var out strings.Builder
	write := func(prefix byte, line string) {
		out.WriteByte(prefix)
		out.WriteString(line)
		out.WriteByte('\n')
	}
	// Common head and tail need no table.
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	for _, l := range a[:head] {
		write(' ', l)
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			write('-', l)
		}
		for _, l := range mb {
			write('+', l)
		}
	} else {
		diffMiddle(ma, mb, write)
	}
	for _, l := range a[len(a)-tail:] {
		write(' ', l)
	}
	return out.String()
}

// diffMiddle writes the diff of a and b from a table of longest common
// subsequence lengths.
func diffMiddle(a, b []string, write func(byte, string)) {
	n, m := len(a), len(b)
	lcs := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return lcs[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				lcs[i*(m+1)+j] = at(i+1, j+1) + 1
			case at(i+1, j) >= at(i, j+1):
				lcs[i*(m+1)+j] = at(i+1, j)
			default:
				lcs[i*(m+1)+j] = at(i, j+1)
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			write(' ', a[i])
			i++
			j++
		case at(i+1, j) >= at(i, j+1):
			write('-', a[i])
			i++
		default:
			write('+', b[j])
			j++
		}
	}
	for ; i < n; i++ {
		write('-', a[i])
	}
	for ; j < m; j++ {
		write('+', b[j])
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
