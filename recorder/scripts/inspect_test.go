package scripts

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseShebang(t *testing.T) {
	cases := []struct {
		line string
		want []string
	}{
		{"#!/bin/bash", []string{"/bin/bash"}},
		{"#!/usr/bin/env python3", []string{"/usr/bin/env", "python3"}},
		{"#! /bin/sh -e\r", []string{"/bin/sh", "-e"}},
		{"#!/usr/bin/env -S deno run\t--allow-read", []string{"/usr/bin/env", "-S", "deno", "run", "--allow-read"}},
		{"#!/bin/sh\necho hi", []string{"/bin/sh"}},
		{"#!", nil},
		{"#!   ", nil},
		{"# not a shebang", nil},
		{"echo hi", nil},
		{"#!/bin/sh\x00x", nil},
		{"#!/bin/\x1b[31msh", nil},
	}
	for _, c := range cases {
		got, ok := ParseShebang(c.line)
		if !slices.Equal(got, c.want) || ok != (c.want != nil) {
			t.Errorf("ParseShebang(%q) = %q, %v; want %q", c.line, got, ok, c.want)
		}
	}
}

func FuzzParseShebang(f *testing.F) {
	for _, s := range []string{"#!/bin/bash", "#!/usr/bin/env python3", "#!", "#!\t\t", "#!/a b\r\nc", "#!\xff", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, ok := ParseShebang(line)
		if ok != (len(words) > 0) {
			t.Fatalf("ok %v with %d words", ok, len(words))
		}
		if ok && !strings.HasPrefix(line, "#!") {
			t.Fatalf("%q is not a shebang", line)
		}
		for _, w := range words {
			if w == "" || strings.ContainsAny(w, " \t\r\n\x00") || !utf8.ValidString(w) {
				t.Fatalf("bad word %q from %q", w, line)
			}
		}
	})
}

func TestDescriptionIsTheFirstLineOfTheFirstCommentBlock(t *testing.T) {
	cases := map[string]string{
		"#!/bin/bash\n# Deploy the application to production\n#\n# This script handles the full deployment process including\n# building, testing, and releasing to production servers.\n\nset -e\n": "Deploy the application to production",
		"#!/bin/sh\n\n# shellcheck disable=SC2086\n# -*- coding: utf-8 -*-\n#######\n#   Build it  \nmake\n":                                                                                         "Build it",
		"#!/bin/sh\necho hi\n# too late\n":              "",
		"#!/bin/sh\n":                                   "",
		"# no shebang, still a comment\necho\n":         "no shebang, still a comment",
		"#!/usr/bin/env python3\n\"\"\"Docstring\"\"\"": "",
		"\x7fELF\x00\x00# binary":                       "",
		"#!/bin/sh\n# tab\there\n":                      "tab here",
	}
	for src, want := range cases {
		if got := Description([]byte(src)); got != want {
			t.Errorf("Description(%q) = %q, want %q", src, got, want)
		}
	}
	long := "#!/bin/sh\n# " + strings.Repeat("word ", 200) + "\n"
	if got := Description([]byte(long)); utf8.RuneCountInString(got) != maxDescription || !strings.HasSuffix(got, "…") {
		t.Errorf("long description not clipped: %d runes", utf8.RuneCountInString(got))
	}
}

func FuzzDescription(f *testing.F) {
	f.Add([]byte("#!/bin/bash\n# Build\n"))
	f.Add([]byte("# \xff\xfe\n"))
	f.Add([]byte("#\n#\n#x\x00"))
	f.Fuzz(func(t *testing.T, head []byte) {
		d := Description(head)
		if !utf8.ValidString(d) || strings.ContainsAny(d, "\n\r\x00") || utf8.RuneCountInString(d) > maxDescription {
			t.Fatalf("bad description %q", d)
		}
	})
}

func TestInterpreterOrderConfiguredShebangExtensionDirect(t *testing.T) {
	configured := map[string]string{".py": "/usr/bin/python3.11", ".ts": "npx ts-node", ".SH": "dash"}
	cases := []struct {
		name, head string
		want       []string
	}{
		// 1. the configured interpreter beats the shebang
		{"x.py", "#!/usr/bin/env python2\n", []string{"/usr/bin/python3.11"}},
		{"x.ts", "", []string{"npx", "ts-node"}},
		{"x.SH", "#!/bin/bash\n", []string{"dash"}},
		// 2. the shebang beats the extension default
		{"x.sh", "#!/bin/bash -e\n", []string{"/bin/bash", "-e"}},
		{"x", "#!/usr/bin/env ruby\n", []string{"/usr/bin/env", "ruby"}},
		// 3. extension defaults
		{"x.sh", "echo\n", []string{"/bin/sh"}},
		{"x.bash", "", []string{"/bin/bash"}},
		{"x.zsh", "", []string{"/bin/zsh"}},
		{"x.rb", "", []string{"ruby"}},
		{"x.js", "", []string{"node"}},
		{"x.pl", "", []string{"perl"}},
		{"x.php", "", []string{"php"}},
		{"x.BASH", "", []string{"/bin/bash"}},
		// 4. direct execution
		{"run_server", "echo\n", nil},
		{"tool.bin", "\x7fELF\x00#!/bin/sh", nil},
	}
	for _, c := range cases {
		if got := Interpreter(c.name, []byte(c.head), configured); !slices.Equal(got, c.want) {
			t.Errorf("Interpreter(%q, %q) = %q, want %q", c.name, c.head, got, c.want)
		}
	}
	if got := Interpreter("x.ts", nil, nil); !slices.Equal(got, []string{"npx", "ts-node"}) {
		t.Errorf("default .ts interpreter %q", got)
	}
}
