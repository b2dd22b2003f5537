package scripts

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
)

const (
	// headSize is how much of a script is read to find its shebang line and
	// description, and to tell whether it is binary.
	headSize = 8192
	// maxDescription is the longest description kept, in characters.
	maxDescription = 300
)

// readHead reads the first headSize bytes of a file.
func readHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, headSize)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return buf[:n], nil
}

// IsBinary reports whether the start of a file looks binary (has a NUL byte).
func IsBinary(head []byte) bool { return bytes.IndexByte(head, 0) >= 0 }

// firstLine is the text of a file's first line, without the line ending.
func firstLine(head []byte) string {
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return strings.TrimSuffix(string(head), "\r")
}

// HasShebang reports whether a file starts with "#!".
func HasShebang(head []byte) bool { return bytes.HasPrefix(head, []byte("#!")) }

// ParseShebang reads the interpreter from a script's first line:
// "#!/usr/bin/env python3" gives ["/usr/bin/env", "python3"], "#!/bin/bash -e"
// gives ["/bin/bash", "-e"]. Words are separated by spaces and tabs, as the
// kernel separates them; there is no quoting. ok is false when the line is
// not a shebang, names no interpreter, or holds control characters.
func ParseShebang(line string) (words []string, ok bool) {
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSuffix(line, "\r")
	rest, found := strings.CutPrefix(line, "#!")
	if !found {
		return nil, false
	}
	for _, r := range rest {
		if r != '\t' && (r < ' ' || r == 0x7f) || r == unicode.ReplacementChar {
			return nil, false
		}
	}
	words = strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(words) == 0 {
		return nil, false
	}
	return words, true
}

// Description is the first line of text in a script's first comment block:
// the lines starting with "#" after the shebang line, before any code.
// Empty comment lines, separator lines ("# -----") and tool directives
// ("# shellcheck disable=...", "# -*- coding: utf-8 -*-") are skipped. It is ""
// when there is none; callers then use "Run <path>".
func Description(head []byte) string {
	if IsBinary(head) {
		return ""
	}
	lines := strings.Split(strings.ToValidUTF8(string(head), "\uFFFD"), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "#!") {
		lines = lines[1:]
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "#") {
			return ""
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		if isDirective(text) || !strings.ContainsFunc(text, func(r rune) bool {
			return unicode.IsLetter(r) || unicode.IsDigit(r)
		}) {
			continue
		}
		return clip(text)
	}
	return ""
}

// isDirective reports whether a comment instructs a tool rather than
// describes the script.
func isDirective(text string) bool {
	lower := strings.ToLower(text)
	for _, p := range [...]string{"-*-", "vim:", "vi:", "shellcheck ", "coding:", "coding=", "///", "noqa", "pylint:", "type:"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}

// clip drops control characters and shortens s to maxDescription characters.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > maxDescription {
		s = strings.TrimSpace(string(r[:maxDescription-1])) + "…"
	}
	return s
}

// DefaultInterpreter is the interpreter for a file extension when neither
// the settings nor the script's shebang line names one; "" means the script
// is executed directly.
func DefaultInterpreter(ext string) string {
	switch strings.ToLower(ext) {
	case ".sh":
		return "/bin/sh"
	case ".bash":
		return "/bin/bash"
	case ".zsh":
		return "/bin/zsh"
	case ".py":
		return "python3"
	case ".rb":
		return "ruby"
	case ".js":
		return "node"
	case ".ts":
		return "npx ts-node"
	case ".pl":
		return "perl"
	case ".php":
		return "php"
	}
	return ""
}

// Interpreter picks the command words that run a script, in this order: the
// interpreter configured for its extension (scripts.interpreters), its
// shebang line, the default for its extension. Multi-word interpreters such
// as "npx ts-node" are split at spaces. nil means the script is executed
// directly, which needs its execute bit.
func Interpreter(name string, head []byte, configured map[string]string) []string {
	ext := Suffix(name)
	if ext != "" {
		if v, ok := configured[ext]; ok && strings.TrimSpace(v) != "" {
			return strings.Fields(v)
		}
		if v, ok := configured[strings.ToLower(ext)]; ok && strings.TrimSpace(v) != "" {
			return strings.Fields(v)
		}
	}
	if !IsBinary(head) {
		if words, ok := ParseShebang(firstLine(head)); ok {
			return words
		}
	}
	if v := DefaultInterpreter(ext); v != "" {
		return strings.Fields(v)
	}
	return nil
}
