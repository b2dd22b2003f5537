package mcpserver

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitPID waits for the command to write its pid (its process group's id).
func waitPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, "the command writes its pid", func() bool {
		data, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})
	return pid
}

// groupGone reports whether no process of group pgid is left.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

func TestDisconnectMidCall(t *testing.T) {
	p := newProject(t, "")
	srv, err := New(Options{Version: "test", Dir: p.dir, WorkDir: p.root, StateDir: p.state, Open: testOpen, Command: testCommand})
	if err != nil {
		t.Fatal(err)
	}
	// Pipes, so that the client can vanish the way a killed process does.
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &mcp.IOTransport{Reader: toServer, Writer: fromServer}) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash_recorder.execute",
		Arguments: map[string]any{"command": "echo $$ > " + pidFile + "; sleep 60 & sleep 60"}})
	pgid := waitPID(t, pidFile)
	fromClient.Close() // the client goes away while the command runs
	toClient.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop when the client went away")
	}
	if !groupGone(pgid) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		t.Fatal("the command's process group outlived the client")
	}
	var found bool
	for _, evs := range events(t, p.dir) {
		for _, ev := range ofType(evs, transcript.TypeBashRun) {
			found = true
			if b := ev.Body.(*transcript.BashRun); !b.Interrupted {
				t.Errorf("run not marked interrupted: %+v", b)
			}
			if st := endStatus(evs); st != transcript.StatusShutdown {
				t.Errorf("session end status %q, want shutdown", st)
			}
		}
	}
	if !found {
		t.Error("the interrupted run was not recorded")
	}
}

func TestStopFinalizesSession(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	pidFile := filepath.Join(t.TempDir(), "pid")
	go ts.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash_recorder.execute",
		Arguments: map[string]any{"command": "echo $$ > " + pidFile + "; sleep 60"}})
	pgid := waitPID(t, pidFile)
	ts.cancel() // as on SIGTERM
	select {
	case err := <-ts.done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
	ts.client.Close()
	ts.client = nil
	if !groupGone(pgid) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		t.Fatal("the command's process group outlived the server")
	}
	for id, evs := range events(t, p.dir) {
		if st := endStatus(evs); st != transcript.StatusShutdown {
			t.Errorf("session %s end status %q", id, st)
		}
	}
}
