package session

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// listed is a Source that only lists.
type listed struct {
	name string
	ids  []string
}

func (l listed) Name() string { return l.name }
func (l listed) List(context.Context) ([]Info, error) {
	out := make([]Info, len(l.ids))
	for i, id := range l.ids {
		out[i] = Info{ID: l.name + ":" + id}
	}
	return out, nil
}
func (l listed) Read(context.Context, string, func(*transcript.Event) error) error { return nil }
func (l listed) Follow(context.Context, string, func(FollowItem)) error            { return nil }

func TestFindIn(t *testing.T) {
	sources := []Source{
		listed{"claude", []string{"fe5e1c67-53e7-4862-81ae-d0e013e3270b", "0aa11111-2222-4333-8444-555555555555"}},
		listed{"codex", []string{"019a93b9-f380-7600-98ff-940e6b99603c", "fe5e0000-1111-7222-8333-444444444444"}},
	}
	for id, want := range map[string]string{
		"claude:fe5e1c67-53e7-4862-81ae-d0e013e3270b": "claude:fe5e1c67-53e7-4862-81ae-d0e013e3270b",
		"claude:fe5e":    "claude:fe5e1c67-53e7-4862-81ae-d0e013e3270b", // the prefix limits the search
		"fe5e1c67":       "claude:fe5e1c67-53e7-4862-81ae-d0e013e3270b",
		"f380":           "codex:019a93b9-f380-7600-98ff-940e6b99603c",
		"codex:019a93b9": "codex:019a93b9-f380-7600-98ff-940e6b99603c",
	} {
		info, src, err := FindIn(context.Background(), sources, id)
		if err != nil || info.ID != want || src == nil {
			t.Errorf("%s: %q %v, want %s", id, info.ID, err, want)
		}
	}
	var amb *AmbiguousError
	if _, _, err := FindIn(context.Background(), sources, "fe5e"); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("fe5e: %v, want ambiguous between two sources", err)
	}
	var nf *ForeignNotFoundError
	for _, id := range []string{"claude:f380", "zzzz", "codex:", "gemini:fe5e"} {
		if _, _, err := FindIn(context.Background(), sources, id); !errors.As(err, &nf) {
			t.Errorf("%s: %v, want not found", id, err)
		}
	}
}

func TestFindAny(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), DirName))
	s.NoSync = true
	w, err := s.Create(&transcript.SessionStart{Agent: "test"}, time.Date(2026, 1, 18, 14, 30, 52, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	w.Detach()
	others := []Source{listed{"claude", []string{"fe5e1c67-53e7-4862-81ae-d0e013e3270b"}}}
	ctx := context.Background()
	if info, src, err := FindAny(ctx, s, others, "143052"); err != nil || info.ID != w.ID() || src.Name() != NativeSourceName {
		t.Errorf("a part of cuff's id: %+v %v", info, err)
	}
	if info, src, err := FindAny(ctx, s, others, "fe5e1c67"); err != nil || src.Name() != "claude" || info.ID != "claude:fe5e1c67-53e7-4862-81ae-d0e013e3270b" {
		t.Errorf("a part of a foreign id: %+v %v", info, err)
	}
	var nf *NotFoundError
	if _, _, err := FindAny(ctx, s, others, "999999"); !errors.As(err, &nf) {
		t.Errorf("found nowhere: %v, want the store's not-found error", err)
	}
	var bad *InvalidIDError
	if _, _, err := FindAny(ctx, s, others, "../../etc/passwd"); !errors.As(err, &bad) {
		t.Errorf("not an id: %v, want the store's invalid-id error", err)
	}
}
