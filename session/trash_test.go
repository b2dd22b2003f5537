package session

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// TestTrashAndRestore: a deleted session leaves the listing and the
// sessions folder for the trash, comes back whole, is refused while it is
// recorded or when its id is taken, and goes for good with Purge.
func TestTrashAndRestore(t *testing.T) {
	s := Open(t.TempDir())
	w, err := s.Create(&transcript.SessionStart{Agent: "cuff-exec", Title: "to delete"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	id := w.ID()
	if _, err := s.Trash(id, time.Now()); !errors.As(err, new(*LiveError)) {
		t.Errorf("a session being recorded was trashed: %v", err)
	}
	if err := w.Close(transcript.StatusComplete); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.EventsPath(id))
	tr, err := s.Trash(id, time.Now())
	if err != nil || tr.Title != "to delete" {
		t.Fatalf("trash: %+v %v", tr, err)
	}
	if all, _ := s.Sessions(); len(all) != 0 {
		t.Errorf("a trashed session is still listed: %d", len(all))
	}
	if _, err := os.Stat(s.EventsPath(id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the session file is still there: %v", err)
	}
	list, err := s.TrashList()
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("trash list: %+v %v", list, err)
	}
	if _, err := s.Restore(id); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(s.EventsPath(id))
	if string(after) != string(before) {
		t.Error("the restored session differs from the deleted one")
	}
	if all, _ := s.Sessions(); len(all) != 1 || all[0].Title != "to delete" {
		t.Errorf("not listed again after restoring: %+v", all)
	}
	if list, _ := s.TrashList(); len(list) != 0 {
		t.Errorf("still in the trash: %+v", list)
	}
	// Restoring over a session of the same id is refused.
	if _, err := s.Trash(id, time.Now().Add(-48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.EventsPath(id), before, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(id); !errors.As(err, new(*RestoreConflictError)) {
		t.Errorf("restored over a session of the same id: %v", err)
	}
	if n, _, err := s.Purge(time.Now().Add(-24 * time.Hour)); err != nil || n != 1 {
		t.Errorf("purge: %d %v", n, err)
	}
	if _, err := s.Restore(id); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("a purged session restored: %v", err)
	}
	if _, err := s.Trash("../../etc", time.Now()); !errors.As(err, new(*InvalidIDError)) {
		t.Errorf("a bad id reached a path: %v", err)
	}
}
