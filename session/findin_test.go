package session

import (
	"context"
	"errors"
	"testing"

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
