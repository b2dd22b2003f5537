package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CleanReport counts what Clean did.
type CleanReport struct {
	// Expired is the requests that were decided as timeouts because no
	// one was waiting for them any more.
	Expired int
	// Removed is the files deleted.
	Removed int
}

// Clean tidies the state directory: a request left unanswered past its
// expiry is decided as a timeout (and recorded), request and decision files
// are removed once their request expired more than Grace ago, leftover
// temporary and unreadable files of ours after Grace, stale watcher
// heartbeats at once, and agent session state idle for GrantIdle. Files of
// other users are left alone.
func (b *Broker) Clean() (CleanReport, error) {
	var rep CleanReport
	now := b.now()
	grace := b.grace()
	var errs []error
	remove := func(p string) {
		err := os.Remove(p)
		switch {
		case err == nil:
			rep.Removed++
		case !errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
		}
	}

	entries, err := readDir(b.pendingDir())
	errs = append(errs, err)
	for _, e := range entries {
		p := filepath.Join(b.pendingDir(), e.Name())
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidID(id) {
			removeLeftover(p, now.Add(-grace), remove)
			continue
		}
		r, _, err := b.readRequest(id)
		if err != nil {
			removeLeftover(p, now.Add(-grace), remove)
			continue
		}
		if now.After(r.ExpiresAt.Add(expireSlack)) && b.decisionOn(r) == nil {
			if _, err := b.expire(r); err != nil {
				errs = append(errs, err)
				continue
			}
			rep.Expired++
		}
		if now.After(r.ExpiresAt.Add(grace)) {
			// The request first, so that no one decides it anew.
			remove(p)
			remove(b.decidedPath(id))
		}
	}

	entries, err = readDir(b.decidedDir())
	errs = append(errs, err)
	for _, e := range entries {
		p := filepath.Join(b.decidedDir(), e.Name())
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidID(id) {
			removeLeftover(p, now.Add(-grace), remove)
			continue
		}
		if _, err := os.Lstat(b.pendingPath(id)); err == nil {
			continue
		}
		d, _, err := b.readDecision(id)
		if err != nil || now.After(d.DecidedAt.Add(grace)) {
			removeLeftover(p, now.Add(-grace), remove)
		}
	}

	if _, err := b.Watchers(); err != nil {
		errs = append(errs, err)
	}

	entries, err = readDir(b.grantsDir())
	errs = append(errs, err)
	for _, e := range entries {
		removeLeftover(filepath.Join(b.grantsDir(), e.Name()), now.Add(-GrantIdle), remove)
	}
	return rep, errors.Join(errs...)
}

// removeLeftover removes p if it is a file of ours last changed before
// cutoff.
func removeLeftover(p string, cutoff time.Time, remove func(string)) {
	fi, err := os.Lstat(p)
	if err != nil || fi.IsDir() || !fi.ModTime().Before(cutoff) {
		return
	}
	if uid, ok := ownerOf(fi); ok && uid == os.Getuid() {
		remove(p)
	}
}

func readDir(d string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d, err)
	}
	return entries, nil
}
