// Package regular reads the small files cuff keeps beside its sessions —
// settings, policy, index, meta — refusing anything but a regular file of
// a bounded size: a settings.yml that is a link to /dev/zero, a named pipe
// or a 10 GB file must cost an error, not all memory or a hang.
package regular

import (
	"errors"
	"fmt"
	"io"

	"github.com/cuff-dev/cuff/transcript"
	"golang.org/x/sys/unix"
)

// TooBigError is a file bigger than cuff reads of its kind.
type TooBigError struct {
	Path        string
	What        string
	Size, Limit int64
}

func (e *TooBigError) Error() string {
	return fmt.Sprintf("the %s %s is %d bytes, more than the %d cuff reads of one", e.What, e.Path, e.Size, e.Limit)
}

// Read returns the content of the regular file at path, a what ("settings
// file", "index"), at most limit bytes. A symbolic link is followed when
// follow is set (a user's settings file may be one) and refused otherwise.
// Anything but a regular file is a *transcript.NotRegularError, found
// without blocking; a file over limit is a *TooBigError. A missing file is
// an error that wraps fs.ErrNotExist.
func Read(path, what string, limit int64, follow bool) ([]byte, error) {
	f, err := transcript.OpenRegular(path, unix.O_RDONLY, 0, follow)
	var nr *transcript.NotRegularError
	if errors.As(err, &nr) {
		nr.What = what
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		size := int64(len(data))
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		return nil, &TooBigError{Path: path, What: what, Size: size, Limit: limit}
	}
	return data, nil
}
