package redact

import (
	"fmt"
	"strings"
	"testing"
)

// ordinaryOutput builds about n bytes of realistic command output without
// secrets: build and test logs, directory listings, git history, package
// manager output with URLs and JSON, the odd word that looks like a
// trigger ("tokenizer", "keyboard", "monkey").
func ordinaryOutput(n int) string {
	lines := []string{
		"=== RUN   TestTokenizer/empty_input",
		"--- PASS: TestTokenizer/empty_input (0.00s)",
		"ok  \tgithub.com/example/project/internal/lexer\t0.012s",
		"-rw-r--r--  1 dev  staff   4096 Jan 18 14:30 keyboard_layout.go",
		"drwxr-xr-x  5 dev  staff    160 Jan 18 14:31 internal",
		"commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
		"Author: Dev Person <dev@example.com>",
		"Date:   Sun Jan 18 14:30:52 2026 +0000",
		"    Fix off-by-one in monkey patch of the sort key comparator",
		"npm http fetch GET 200 https://registry.npmjs.org/left-pad 34ms (cache hit)",
		`  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",`,
		`  "integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==",`,
		"main.go:42:13: undefined: parseConfig",
		"src/app.ts(17,5): error TS2322: Type 'string' is not assignable to type 'number'.",
		"   Compiling serde v1.0.197",
		"    Finished dev [unoptimized + debuginfo] target(s) in 12.34s",
		"INFO[0003] pulling image docker.io/library/golang:1.22-alpine",
		"  Downloading requests-2.31.0-py3-none-any.whl (62 kB)",
		"total 48",
		"PASS",
		"Step 4/9 : RUN go build -o /out/app ./cmd/app",
		"warning: unused variable `idx` in src/lib.rs:88:9",
		"Hash map with 1024 buckets, load factor 0.75, rehash at 768 entries",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s\n", lines[i%len(lines)])
	}
	return b.String()[:n]
}

func BenchmarkRedact(b *testing.B) {
	r := MustNew(Options{})
	in := ordinaryOutput(1 << 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if out := r.String(in); len(out) != len(in) {
			b.Fatalf("ordinary output changed: %d -> %d bytes", len(in), len(out))
		}
	}
}

// BenchmarkRedactDense measures output where every few lines hold a secret.
func BenchmarkRedactDense(b *testing.B) {
	r := MustNew(Options{})
	base := ordinaryOutput(1 << 20)
	lines := strings.Split(base, "\n")
	for i := 0; i < len(lines); i += 10 {
		lines[i] = "export API_TOKEN=tok_0123456789abcdef Authorization: Bearer abcdef0123456789"
	}
	in := strings.Join(lines, "\n")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r.String(in)
	}
}

func BenchmarkRedactJSON(b *testing.B) {
	r := MustNew(Options{})
	in := []byte(fmt.Sprintf(`{"type":"bash_run","command":"go test ./...","stdout":%q,"exit_code":0}`, ordinaryOutput(1<<20)))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.JSON(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedactValidJSON is the appender's path: a line cuff just
// encoded, so known to be valid.
func BenchmarkRedactValidJSON(b *testing.B) {
	r := MustNew(Options{})
	in := []byte(fmt.Sprintf(`{"type":"bash_run","command":"go test ./...","stdout":%q,"exit_code":0}`, ordinaryOutput(1<<20)))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r.ValidJSON(in)
	}
}

// BenchmarkNewRedactor is what every hook call pays to make its redactor
// (the built-in patterns compile when first tried).
func BenchmarkNewRedactor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
