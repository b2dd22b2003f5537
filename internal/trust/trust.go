// Package trust remembers which content of a project's .cuff/policy.yml and
// .cuff/settings.yml a person trusted, the way direnv remembers allowed
// .envrc files: a record per project in cuff's state directory, which the
// agent cannot write, holding the trusted text of each file. Whatever a
// file's current text loosens counts only once it is trusted; what it
// tightens counts at once (see internal/settings and recorder/gate).
package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cuff-dev/cuff/internal/atomicfile"
)

// The files of a project's .cuff directory that trust covers.
const (
	PolicyFile   = "policy.yml"
	SettingsFile = "settings.yml"
)

// Files are the files trust covers, in the order they are shown.
var Files = []string{PolicyFile, SettingsFile}

// formatVersion is the "v" of a record.
const formatVersion = 1

// maxRecordBytes bounds a record file.
const maxRecordBytes = 4 << 20

// File is the trusted content of one file.
type File struct {
	// Exists is false when the person trusted the file's absence.
	Exists bool `json:"exists"`
	// SHA256 is the hex digest of Content.
	SHA256 string `json:"sha256"`
	// Content is the trusted text.
	Content []byte `json:"content"`
}

// Record is what a person trusted of one project.
type Record struct {
	V int `json:"v"`
	// Dir is the project's .cuff directory.
	Dir       string          `json:"dir"`
	TrustedAt time.Time       `json:"trusted_at"`
	Files     map[string]File `json:"files"`
}

// Current is the content of the covered files as they are now; a file
// that does not exist is absent from the map.
type Current map[string][]byte

// Read reads the covered files of the .cuff directory dir.
func Read(dir string) (Current, error) {
	cur := Current{}
	for _, name := range Files {
		data, err := regular.Read(filepath.Join(dir, name), name, 4<<20, true)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, name), err)
		default:
			cur[name] = data
		}
	}
	return cur, nil
}

// Digest is the hex SHA-256 of data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// path is where the record of the .cuff directory dir is kept.
func path(stateDir, dir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(dir)))
	return filepath.Join(stateDir, "trust", hex.EncodeToString(sum[:16])+".json")
}

// Load reads the record of the .cuff directory dir; nil when nothing was
// trusted (or the record is not one cuff wrote: another user's, loose,
// malformed or for another directory).
func Load(stateDir, dir string) *Record {
	if stateDir == "" {
		return nil
	}
	f, err := os.OpenFile(path(stateDir, dir), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil || len(data) > maxRecordBytes {
		return nil
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&r) != nil || r.V != formatVersion || r.Dir != filepath.Clean(dir) {
		return nil
	}
	for _, file := range r.Files {
		if file.SHA256 != Digest(file.Content) || !file.Exists && len(file.Content) > 0 {
			return nil
		}
	}
	return &r
}

// Save records cur as trusted for the .cuff directory dir.
func Save(stateDir, dir string, cur Current, now time.Time) error {
	if stateDir == "" {
		return errors.New("no state directory to keep trust in: set HOME or CUFF_STATE_DIR")
	}
	r := Record{V: formatVersion, Dir: filepath.Clean(dir), TrustedAt: now.UTC(), Files: map[string]File{}}
	for _, name := range Files {
		data, ok := cur[name]
		r.Files[name] = File{Exists: ok, SHA256: Digest(data), Content: data}
	}
	out, err := json.MarshalIndent(&r, "", "  ")
	if err != nil {
		return err
	}
	p := path(stateDir, dir)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("keep trust: %w", err)
	}
	f, err := atomicfile.Create(p, 0o600)
	if err != nil {
		return fmt.Errorf("keep trust: %w", err)
	}
	if _, err := f.Write(append(out, '\n')); err != nil {
		f.Abort()
		return fmt.Errorf("keep trust: %w", err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("keep trust: %w", err)
	}
	return nil
}

// Trusted returns the trusted content of file name and whether it
// existed; ok is false when there is no record or the record does not
// cover the file.
func (r *Record) Trusted(name string) (content []byte, exists, ok bool) {
	if r == nil {
		return nil, false, false
	}
	f, found := r.Files[name]
	if !found {
		return nil, false, false
	}
	return f.Content, f.Exists, true
}

// Matches reports whether file name's current content (present says the
// file exists) is what was trusted.
func (r *Record) Matches(name string, content []byte, present bool) bool {
	trusted, exists, ok := r.Trusted(name)
	return ok && exists == present && bytes.Equal(trusted, content)
}

// Update records content (present says the file exists) as the trusted
// text of file name of the .cuff directory dir, keeping what the record
// says of the other files; without a record, their absence is trusted.
func Update(stateDir, dir, name string, content []byte, present bool, now time.Time) error {
	cur := Current{}
	r := Load(stateDir, dir)
	for _, n := range Files {
		if data, exists, ok := r.Trusted(n); ok && exists {
			cur[n] = data
		}
	}
	delete(cur, name)
	if present {
		cur[name] = content
	}
	return Save(stateDir, dir, cur, now)
}
