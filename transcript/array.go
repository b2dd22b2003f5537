package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ArrayStats counts what DecodeArray passed over.
type ArrayStats struct {
	Events    int // elements decoded into events
	Malformed int // elements that are not events, skipped
}

// DecodeArray reads a JSON array of events, as `cuff record export
// --format json` writes it, one element at a time (memory stays bounded by
// the largest element), and passes each event to fn. Elements that are not
// events are counted and skipped. Input that is not a JSON array, or that
// breaks off, is an error that names the byte offset.
func DecodeArray(r io.Reader, fn func(*Event) error) (ArrayStats, error) {
	var st ArrayStats
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return st, fmt.Errorf("read JSON array: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return st, errors.New("read JSON array: the input does not start with [")
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return st, fmt.Errorf("read JSON array: element %d (near byte %d): %w", st.Events+st.Malformed+1, dec.InputOffset(), err)
		}
		ev, err := Decode(raw)
		if err != nil {
			st.Malformed++
			continue
		}
		st.Events++
		if err := fn(ev); err != nil {
			return st, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return st, fmt.Errorf("read JSON array: it breaks off near byte %d: %w", dec.InputOffset(), err)
	}
	return st, nil
}
