package keys

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// docKey is how docs/tui.md writes a key: in backticks, with the names
// people read (enter, esc, pgdn, ctrl+e).
func docKey(k string) string {
	switch k {
	case "pgdown":
		k = "pgdn"
	case "up":
		k = "↑"
	case "down":
		k = "↓"
	case "left":
		k = "←"
	case "right":
		k = "→"
	}
	return "`" + k + "`"
}

// TestEveryKeyIsDocumented: each key of every binding appears in
// docs/tui.md, so the keys page is never behind the TUI.
func TestEveryKeyIsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/tui.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	km := DefaultKeyMap()
	groups := reflect.ValueOf(km)
	n := 0
	for i := range groups.NumField() {
		group := groups.Field(i)
		for j := range group.NumField() {
			b, ok := group.Field(j).Interface().(key.Binding)
			if !ok {
				continue
			}
			for _, k := range b.Keys() {
				n++
				if !strings.Contains(doc, docKey(k)) {
					t.Errorf("%s.%s: key %s is not in docs/tui.md", groups.Type().Field(i).Name, group.Type().Field(j).Name, docKey(k))
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d keys found: is the key map read?", n)
	}
}
