package scripts

import (
	"regexp"
	"strings"
	"testing"
)

func TestToolNameFollowsTheSeedTables(t *testing.T) {
	for path, want := range map[string]string{
		"scripts/build.sh":       "script_scripts_build",
		"scripts/deploy-prod.sh": "script_scripts_deploy_prod",
		"tools/db/migrate.py":    "script_tools_db_migrate",
		"build.sh":               "script_build",
		"scripts/ci/test.sh":     "script_scripts_ci_test",
		"tools/db-migrate.py":    "script_tools_db_migrate",
		"bin/run_server":         "script_bin_run_server",
		"scripts/build.prod.sh":  "script_scripts_build_prod",
		// A hidden name has no extension; its dot becomes an underscore.
		".bashrc":          "script__bashrc",
		"scripts/.env.sh":  "script_scripts__env",
		"notes.":           "script_notes_",
		"my script (1).sh": "script_my_script__1_",
		"scripts/héllo.sh": "script_scripts_h_llo",
	} {
		if got := ToolName(path); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestSuffixIsTheLastExtensionOfTheName(t *testing.T) {
	for name, want := range map[string]string{
		"build.sh": ".sh", "build.prod.sh": ".sh", ".bashrc": "", "Makefile": "", "a.": "", ".env.sh": ".sh", "": "",
	} {
		if got := Suffix(name); got != want {
			t.Errorf("Suffix(%q) = %q, want %q", name, got, want)
		}
	}
}

var toolNameRE = regexp.MustCompile(`^script_[A-Za-z0-9_]*$`)

func FuzzToolName(f *testing.F) {
	for _, s := range []string{"scripts/build.sh", "tools/db-migrate.py", "bin/run_server", ".x", "a/b/c.d.e", "é/ü.sh", "\x00", "a//b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		got := ToolName(rel)
		if !toolNameRE.MatchString(got) {
			t.Fatalf("ToolName(%q) = %q: not a valid tool name", rel, got)
		}
		if ToolName(rel) != got {
			t.Fatal("not deterministic")
		}
		// Changing only the extension never changes the name: that is why
		// build.sh and build.py conflict.
		if !strings.ContainsAny(rel, "/.") && rel != "" {
			if other := ToolName(rel + ".sh"); other != got {
				t.Fatalf("ToolName(%q) = %q but ToolName(%q) = %q", rel, got, rel+".sh", other)
			}
		}
	})
}

func BenchmarkToolName(b *testing.B) {
	for b.Loop() {
		ToolName("tools/db/migrate-prod.v2.py")
	}
}
