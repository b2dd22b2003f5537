package scripts

import (
	"path"
	"strings"
)

// Tool names and the description of the tool that lists the scripts.
const (
	// ToolPrefix starts the name of every script's tool.
	ToolPrefix = "script_"
	// ListToolName is the tool that lists the scripts (when expose_list_scripts is on).
	ListToolName = "script_list_scripts"
	// ListToolDescription describes the list tool.
	ListToolDescription = "List all available scripts"
)

// Suffix is a file name's extension as the scripts plugin sees it: ".sh" for
// "build.sh", ".sh" for "build.prod.sh", and "" for ".bashrc", "Makefile" or
// "notes." (a leading dot starts a hidden name, not an extension).
func Suffix(name string) string {
	i := strings.LastIndexByte(name, '.')
	if 0 < i && i < len(name)-1 {
		return name[i:]
	}
	return ""
}

// ToolName derives a script's tool name from its slash-separated path
// relative to the base directory: the extension is removed, path
// separators, hyphens and dots become underscores, and "script_" is put in
// front ("scripts/deploy-prod.sh" is "script_scripts_deploy_prod"). Any other
// character that may not appear in a tool name (spaces, punctuation,
// non-ASCII letters) becomes an underscore too, so the result always matches
// ^script_[A-Za-z0-9_]*$. Distinct paths can share a name; Load reports that
// as a conflict.
func ToolName(rel string) string {
	dir, base := path.Split(rel)
	stem := dir + strings.TrimSuffix(base, Suffix(base))
	var b strings.Builder
	b.Grow(len(ToolPrefix) + len(stem))
	b.WriteString(ToolPrefix)
	for _, r := range stem {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
