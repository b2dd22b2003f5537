package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/testenv"
)

// TestAppendOnAFullDiskLeavesTheFileAsItWas: on a full disk the write of
// an append can be cut short (it fills what is left of the file's last
// page, then fails); the append fails and the file is left byte for byte as
// it was, not with a torn line that every later append would turn into a
// malformed one. Once there is room again the next append goes on cleanly.
func TestAppendOnAFullDiskLeavesTheFileAsItWas(t *testing.T) {
	mnt := testenv.Tmpfs(t, 256<<10)
	path := filepath.Join(mnt, "s.jsonl")
	a, err := OpenAppender(path, "s", AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "before"})); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	testenv.FillDisk(t, mnt)
	big := New("s", time.Now(), &ChatTurn{Role: RoleAssistant, Text: strings.Repeat("x", 3*os.Getpagesize())})
	if err := a.Append(big); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v, want ENOSPC", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("the failed append changed the file: %d bytes, were %d; ends %q", len(after), len(before), after[max(0, len(after)-40):])
	}
	os.Remove(filepath.Join(mnt, "filler"))
	if err := a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "after"})); err != nil {
		t.Fatal(err)
	}
	events, st := readFile(t, path)
	if len(events) != 2 || st.Malformed != 0 || st.Truncated != 0 || events[1].Seq != 2 {
		t.Errorf("after the disk was freed: %d events, %d malformed lines, %d torn, last seq %d; want 2, 0, 0, 2", len(events), st.Malformed, st.Truncated, events[len(events)-1].Seq)
	}
}
