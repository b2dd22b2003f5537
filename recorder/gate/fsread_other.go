//go:build !linux

package gate

import (
	"io/fs"
	"os"
)

// listDir reads the directory p with os.ReadDir.
func (a *analysis) listDir(p string) ([]dirEntry, error) {
	des, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	if len(des) > maxDirEntries {
		des = des[:maxDirEntries]
	}
	entries := make([]dirEntry, len(des))
	for i, d := range des {
		entries[i] = dirEntry{Name: d.Name(), Dir: d.IsDir(), Link: d.Type()&fs.ModeSymlink != 0}
	}
	return entries, nil
}
