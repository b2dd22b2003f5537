package claudehook

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestParentOf(t *testing.T) {
	if got := parentOf(os.Getpid()); got != os.Getppid() {
		t.Errorf("parentOf(self) = %d, want %d", got, os.Getppid())
	}
	if parentOf(-1) != 0 || comm(-1) != "" {
		t.Error("a process that is not there")
	}
}

// TestWhileAgentRunsEndsWithTheAgent: the context ends when the watched
// process ends, and not before.
func TestWhileAgentRunsEndsWithTheAgent(t *testing.T) {
	agent := exec.Command("sleep", "600")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	ctx, stop := whileAgentRuns(context.Background(), agent.Process.Pid)
	defer stop()
	if ctx.Err() != nil {
		t.Fatal("ended while the agent runs")
	}
	if err := agent.Process.Kill(); err != nil { // the process this test started
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a hang guard only
		t.Fatal("the context outlived the agent")
	}
}
