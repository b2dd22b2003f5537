// Command gen writes cuff's demo session to stdout. Regenerate the embedded
// file from the module root with
//
//	go run ./assets/demo/internal/gen > assets/demo/session.jsonl
//
// The output is deterministic; the demo package's tests fail when the
// committed file differs from it.
package main

import (
	"fmt"
	"os"

	"github.com/cuff-dev/cuff/assets/demo/internal/script"
)

func main() {
	out, err := script.Generate()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintf(os.Stderr, "gen: write demo session: %v\n", err)
		os.Exit(1)
	}
}
