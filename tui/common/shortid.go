package common

import "strings"

// ShortID is the part of a session id that tells a session apart at a
// glance: a cuff id's time and hash (143052_a7b3c9d2), a foreign id's
// source and first uuid group (claude:fe5e1c67). Both name the session on
// the command line, as any unique part of an id does.
func ShortID(id string) string {
	if src, uuid, ok := strings.Cut(id, ":"); ok {
		first, _, _ := strings.Cut(uuid, "-")
		return src + ":" + first
	}
	if len(id) > 9 && id[8] == '_' {
		rest, _, _ := strings.Cut(id[9:], "-")
		return rest
	}
	return id
}
