package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// importsFile maps what was imported (a transcript's own session id, such
// as claude:<uuid>) to the session it became, so that importing it again
// updates that session instead of making another.
const importsFile = "imports.json"

type importMap struct {
	Sessions map[string]string `json:"sessions"`
}

// ImportedAs returns the session that source was imported as, if that
// session is still in the store.
func (s *Store) ImportedAs(source string) (string, bool) {
	var id string
	_ = s.withLock("imports.lock", func() error {
		m, err := s.readImports()
		if err == nil {
			id = m.Sessions[source]
		}
		return nil
	})
	if !ValidID(id) {
		return "", false
	}
	if _, err := os.Stat(s.EventsPath(id)); err != nil {
		return "", false
	}
	return id, true
}

// NoteImport records that source was imported as session id.
func (s *Store) NoteImport(source, id string) error {
	return s.withLock("imports.lock", func() error {
		m, err := s.readImports()
		if err != nil {
			m = &importMap{} // a damaged map only costs a new session on the next import
		}
		if m.Sessions == nil {
			m.Sessions = map[string]string{}
		}
		m.Sessions[source] = id
		for src, sid := range m.Sessions { // forget sessions that were cleaned away
			if _, err := os.Stat(s.EventsPath(sid)); !ValidID(sid) || err != nil {
				delete(m.Sessions, src)
			}
		}
		return writeJSONAtomic(filepath.Join(s.Recordings, importsFile), m)
	})
}

func (s *Store) readImports() (*importMap, error) {
	path := filepath.Join(s.Recordings, importsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &importMap{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var m importMap
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &m, nil
}
