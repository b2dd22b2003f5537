package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordRmAndRestore: rm asks first and takes --force, moves a session
// to the trash (record list no longer shows it), restore lists the trash
// and brings it back; a foreign id and an unknown one are clear errors.
func TestRecordRmAndRestore(t *testing.T) {
	dir, ids := project(t)
	path := filepath.Join(dir, ".cuff/recordings/sessions", ids[0]+".jsonl")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	part := ids[0][9:24] // time and hash: a unique part
	r := cuff(t, dir, "n\n", "record", "rm", part)
	if !strings.Contains(r.stderr, "Delete 1 session? [y/N]") || !strings.Contains(r.stdout, "Nothing deleted.") {
		t.Errorf("declined: %+v", r)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("a declined rm deleted the session")
	}
	r = cuff(t, dir, "y\n", "record", "rm", part)
	if r.code != 0 || !strings.Contains(r.stdout, "Deleted "+ids[0]) {
		t.Fatalf("rm: %+v", r)
	}
	if r := cuff(t, dir, "", "record", "list"); strings.Contains(r.stdout, ids[0]) {
		t.Errorf("a deleted session is listed:\n%s", r.stdout)
	}
	r = cuff(t, dir, "", "record", "restore")
	if r.code != 0 || !strings.Contains(r.stdout, "1 session in the trash") || !strings.Contains(r.stdout, ids[0]) {
		t.Errorf("restore (list): %+v", r)
	}
	r = cuff(t, dir, "", "record", "restore", part)
	if r.code != 0 || !strings.Contains(r.stdout, "Restored "+ids[0]) {
		t.Fatalf("restore: %+v", r)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the restored session differs")
	}
	if r := cuff(t, dir, "", "record", "list"); !strings.Contains(r.stdout, ids[0]) {
		t.Errorf("a restored session is not listed:\n%s", r.stdout)
	}
	if r := cuff(t, dir, "", "record", "rm", "--force", ids[1]); r.code != 0 || strings.Contains(r.stderr, "[y/N]") {
		t.Errorf("--force asked or failed: %+v", r)
	}
	for args, want := range map[string]string{
		"rm claude:fe5e1c67": "cuff deletes only its own recordings",
		"rm 19991231":        "not found",
		"restore zzz":        `no session "zzz" in the trash`,
		"rm":                 "missing SESSION_ID",
	} {
		r := cuff(t, dir, "", append([]string{"record"}, strings.Fields(args)...)...)
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("record %s: %+v, want %q", args, r, want)
		}
	}
}
