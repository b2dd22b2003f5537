package scripts

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDiscoverFindsCommonLocationsAndWarnsAboutEverything(t *testing.T) {
	dir := tree(t, map[string]string{
		"scripts/build.sh":          "#!/bin/bash\n# Build\n",
		"scripts/deploy_secrets.sh": "#!/bin/sh\n",
		"scripts/api_KEY.py":        "#!/usr/bin/env python3\n",
		"scripts/helper.py":         "print('no shebang')\n",
		"bin/tool.sh":               "\x7fELF\x00\x00\x00",
		"setup.sh":                  "#!/bin/sh\n",
		"tools/nested/deep.sh":      "#!/bin/sh\n", // not a discovery location
		"README.md":                 "# readme",
	})
	ww := filepath.Join(dir, "setup.sh")
	if err := os.Chmod(ww, 0o757); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("build.sh", filepath.Join(dir, "scripts", "link.sh")); err != nil {
		t.Fatal(err)
	}
	d, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Applicable || d.Confidence != 0.8 || d.Description != "Found 7 scripts" {
		t.Errorf("discovery %+v", d)
	}
	if want := []string{"scripts/*.sh", "scripts/*.py", "bin/*.sh", "*.sh"}; !slices.Equal(d.Patterns, want) {
		t.Errorf("patterns %v, want %v", d.Patterns, want)
	}
	wantItems := []string{"script_list_scripts", "script_bin_tool", "script_scripts_api_KEY", "script_scripts_build",
		"script_scripts_deploy_secrets", "script_scripts_helper", "script_scripts_link", "script_setup"}
	if !slices.Equal(d.Items, wantItems) {
		t.Errorf("items %v", d.Items)
	}
	var got []string
	for _, w := range d.Warnings {
		got = append(got, w.Message)
	}
	want := []string{
		"Script 'bin/tool.sh' appears to be binary - verify this is intentional",
		"Script 'scripts/api_KEY.py' may contain sensitive operations - review before enabling",
		"Script 'scripts/deploy_secrets.sh' may contain sensitive operations - review before enabling",
		"Script 'scripts/helper.py' has no shebang line - interpreter will be guessed",
		"Script 'scripts/link.sh' is a symlink - target will be validated at runtime",
		"SECURITY: Script 'setup.sh' is world-writable - this allows any user to modify the script",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", got, want)
	}
	if want := []string{"bin/tool.sh", "scripts/api_KEY.py", "scripts/deploy_secrets.sh", "setup.sh"}; !slices.Equal(d.Review, want) {
		t.Errorf("review %v, want %v", d.Review, want)
	}
}

func TestDiscoverReportsConflictsAndEmptyProjects(t *testing.T) {
	d, err := Discover(t.TempDir())
	if err != nil || d.Applicable || d.Description != "No scripts found" || d.Confidence != 0 || len(d.Items) != 0 {
		t.Errorf("empty project: %+v %v", d, err)
	}
	dir := tree(t, map[string]string{"scripts/db-migrate.sh": "#!/bin/sh\n", "scripts/db_migrate.py": "#!/usr/bin/env python3\n"})
	d, err = Discover(dir)
	if err != nil || len(d.Conflicts) != 1 || d.Conflicts[0].Name != "script_scripts_db_migrate" {
		t.Errorf("conflict: %+v %v", d, err)
	}
}
