//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// errNoUnnamed says unnamed files (O_TMPFILE) are a Linux feature: elsewhere
// Create always uses a named temporary file.
var errNoUnnamed = errors.New("unnamed temporary files need Linux")

func openUnnamed(string, os.FileMode) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(*os.File, string) error { return errNoUnnamed }
