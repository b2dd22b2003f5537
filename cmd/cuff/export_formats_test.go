package main

import (
	"database/sql"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestRecordExportFormats exports the sessions of a project in every
// format through the binary.
func TestRecordExportFormats(t *testing.T) {
	dir, ids := project(t)
	raw, _ := os.ReadFile(filepath.Join(dir, ".cuff/recordings/sessions", ids[1]+".jsonl"))
	events := strings.Count(string(raw), "\n")

	r := cuff(t, dir, "", "record", "export", ids[1], "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 0 || err != nil || len(rows) != events+1 {
		t.Fatalf("csv: code %d, %v, %d rows for %d events\n%s", r.code, err, len(rows), events, r.stderr)
	}
	if rows[0][0] != "session_id" || rows[1][0] != ids[1] {
		t.Errorf("csv rows %q %q", rows[0][:3], rows[1][:3])
	}

	r = cuff(t, dir, "", "record", "export", ids[1], "--format", "html")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "<!DOCTYPE html>") || !strings.Contains(r.stdout, "git status") ||
		strings.Contains(r.stdout, "<script") {
		t.Errorf("html: %d %s", r.code, r.stderr)
	}
	r = cuff(t, dir, "", "record", "export", "all", "--format", "markdown")
	if r.code != 0 || strings.Count(r.stdout, "| **Session** |") != 2 || !strings.Contains(r.stdout, "\n---\n") {
		t.Errorf("markdown of all: %d %s\n%s", r.code, r.stderr, r.stdout)
	}

	db := filepath.Join(t.TempDir(), "recordings.db")
	r = cuff(t, dir, "", "record", "export", "all", "--since", "30d", "--format", "sqlite", "--output", db)
	if r.code != 0 || !strings.Contains(r.stderr, "Wrote "+db) {
		t.Fatalf("sqlite: %+v", r)
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n, runs, sessions int
	if err := conn.QueryRow("SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM bash_runs), (SELECT count(*) FROM sessions)").
		Scan(&n, &runs, &sessions); err != nil {
		t.Fatal(err)
	}
	if n != 2*events-1 || runs != 8 || sessions != 2 {
		t.Errorf("sqlite: %d events, %d runs, %d sessions", n, runs, sessions)
	}

	r = cuff(t, dir, "", "record", "export", "all", "--format", "sqlite")
	if r.code != exitUsage || !strings.Contains(r.stderr, "cannot go to standard output: give --output FILE") {
		t.Errorf("sqlite to stdout: %+v", r)
	}
	r = cuff(t, dir, "", "record", "export", ids[0], "--format", "xml")
	if r.code != exitUsage || !strings.Contains(r.stderr, "use one of: json, jsonl, csv, sqlite, html, markdown") {
		t.Errorf("xml: %+v", r)
	}
	out := filepath.Join(t.TempDir(), "s.html")
	r = cuff(t, dir, "", "record", "export", ids[0], "--format", "html", "-o", out)
	if data, err := os.ReadFile(out); r.code != 0 || err != nil || !strings.HasSuffix(string(data), "</html>\n") {
		t.Errorf("html to file: %+v %v", r, err)
	}
}
