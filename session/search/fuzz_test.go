package search

import (
	"database/sql"
	"strings"
	"testing"
)

// FuzzParseQuery: whatever is typed, the query either is refused with a
// QueryError or runs: FTS5 never sees its own syntax in a user's words.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{`zebra`, `"a phrase"`, `pre*`, `a OR b`, `a -b`, `cmd:go test`, `failed:`, `failed:"x y"`,
		`"unterminated`, `NEAR(a b)`, `a AND b`, `col:x`, `*`, `"*"`, `(a)`, `a:b:c`, `-"x"`, `^start`, `x"y"z`} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE fts USING fts5(body, tokenize='unicode61 remove_diacritics 2');
		INSERT INTO fts(body) VALUES ('go test ./... failed: exit code 1'), ('zebra crossing');`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p, err := parseQuery(q)
		if err != nil {
			if _, ok := err.(*QueryError); !ok {
				t.Fatalf("%q: an error that is not a QueryError: %v", q, err)
			}
			return
		}
		if p.match == "" {
			return
		}
		rows, err := db.Query(`SELECT rowid FROM fts WHERE fts MATCH ?`, p.match)
		if err != nil {
			t.Fatalf("%q became %q, which FTS5 refuses: %v", q, p.match, err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil && !strings.Contains(err.Error(), "interrupted") {
			t.Fatalf("%q became %q, which FTS5 refuses: %v", q, p.match, err)
		}
		rows.Close()
	})
}
