package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkExecute is one bash_recorder.execute call of `true` through the
// SDK's in-memory transport: gate, run, two recorded events.
func BenchmarkExecute(b *testing.B) {
	p := newProjectB(b)
	srv, err := New(Options{Version: "bench", Dir: p.dir, WorkDir: p.root, StateDir: p.state, Open: testOpen, Command: testCommand})
	if err != nil {
		b.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "bash_recorder.execute", Arguments: map[string]any{"command": "true"}}
	for b.Loop() {
		if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
	cs.Close()
	cancel()
	<-done
}
