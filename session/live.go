package session

import "time"

// LiveWindow is how recent an append must be for a session to count as
// live when no writer holds its lease.
const LiveWindow = 60 * time.Second

// RecentAppend reports whether a session file was appended to within
// LiveWindow: its file changed and its newest event happened that
// recently. A file copied or touched now whose events are old is not an
// append (the copy of last year's transcript is not live), and an event
// dated in the future counts only while the file itself is fresh.
func RecentAppend(lastEvent, modTime, now time.Time) bool {
	return now.Sub(modTime) < LiveWindow && now.Sub(lastEvent) < LiveWindow
}

// IsLive is whether a session is live, from real signals only: a session
// that recorded its end (the hook's SessionEnd, an exec's end) is not; one
// whose writer holds its lease (a command running, an MCP server serving
// its agent) is; otherwise one recently appended to is.
func IsLive(ended, leaseHeld bool, lastEvent, modTime, now time.Time) bool {
	if ended {
		return false
	}
	return leaseHeld || RecentAppend(lastEvent, modTime, now)
}
