package session

import (
	"context"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
)

// joinedFollow says what followJoined follows.
type joinedFollow struct {
	id         string   // the joined session's id
	recordings []string // cuff's session files of the conversation
	// transcript is the agent's transcript's path, "" while it does not
	// exist: it is looked for again every SafetyPoll until it does.
	transcript func() string
	expects    func(*transcript.Event) bool
	now        func() time.Time // nil: time.Now
	noNotify   bool             // poll instead of file notifications
}

// minWait is the shortest a follower sleeps for a joiner's deadline.
const minWait = 10 * time.Millisecond

// followJoined follows a conversation's transcript and cuff's recordings of
// it as they grow, in one goroutine, and passes the joined events to fn
// (with the followers' notices) until ctx is done (nil) or a file is
// removed (ErrRemoved). Each round reads the transcript first, then cuff's
// records, and gives the joiner cuff's events first: what cuff recorded
// before a transcript line was written is then read in the same round, so
// a call's record is there when the transcript's line for it is placed.
// Until the transcript exists, cuff's recording is shown alone; it is
// looked for every SafetyPoll and whenever cuff's recording grows, and once
// it appears it is joined in (see joiner.FoundTranscript).
func followJoined(ctx context.Context, jf joinedFollow, fn func(FollowItem)) error {
	jn := newJoiner(jf.id, false, func(ev *transcript.Event) error {
		fn(FollowItem{Event: ev})
		return nil
	})
	jn.live, jn.expects = true, jf.expects
	if jf.now != nil {
		jn.now = jf.now
	}
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	var stops []func()
	defer func() {
		close(done)
		for _, stop := range stops {
			stop()
		}
	}()
	watchFile := func(path string) {
		ch, stop := watch(path, jf.noNotify)
		stops = append(stops, stop)
		go func() {
			for {
				select {
				case <-ch:
					select {
					case wake <- struct{}{}:
					default:
					}
				case <-done:
					return
				}
			}
		}()
	}
	var recItems, trItems []FollowItem
	recs := make([]*follower, len(jf.recordings))
	for i, p := range jf.recordings {
		recs[i] = &follower{path: p, fn: func(it FollowItem) { recItems = append(recItems, it) }}
		watchFile(p)
	}
	var tr *follower
	var looked time.Time
	lookForTranscript := func(now time.Time, force bool) {
		if tr != nil || (!force && now.Sub(looked) < SafetyPoll && !looked.IsZero()) {
			return
		}
		looked = now
		p := jf.transcript()
		if p == "" {
			return
		}
		tr = &follower{path: p, detect: true, uuid: foreign.FallbackID(p), fn: func(it FollowItem) { trItems = append(trItems, it) }}
		jn.FoundTranscript()
		watchFile(p)
	}
	defer func() {
		for _, r := range recs {
			r.close()
		}
		if tr != nil {
			tr.close()
		}
	}()
	timer := time.NewTimer(SafetyPoll)
	defer timer.Stop()
	for {
		lookForTranscript(time.Now(), false)
		if tr != nil {
			if err := tr.step(); err != nil {
				return err
			}
		}
		for _, r := range recs {
			if err := r.step(); err != nil {
				return err
			}
		}
		if tr == nil && len(recItems) > 0 {
			// The agent acted: its transcript is likely there now. Joined
			// before cuff's new records are placed, what it shows first
			// (the text before a call cuff recorded) keeps its place.
			lookForTranscript(time.Now(), true)
			if tr != nil {
				if err := tr.step(); err != nil {
					return err
				}
			}
		}
		quiet := len(recItems)+len(trItems) == 0
		for _, it := range recItems {
			if it.Event == nil {
				fn(it)
				continue
			}
			_ = jn.Recording(it.Event) // fn never fails
		}
		for _, it := range trItems {
			if it.Event == nil {
				fn(it)
				continue
			}
			_ = jn.Transcript(it.Event)
		}
		recItems, trItems = recItems[:0], trItems[:0]
		_ = jn.Tick()
		if quiet && (tr == nil || !holding(tr.decoder)) {
			_ = jn.Quiet()
		}
		wait := SafetyPoll
		if until, ok := jn.waiting(); ok {
			wait = max(min(until.Sub(jn.now()), SafetyPoll), minWait)
		}
		if tr != nil {
			if at, ok := wakeAt(tr.decoder); ok {
				wait = max(min(time.Until(at), wait), minWait)
			}
		}
		if jf.noNotify {
			wait = min(wait, FallbackPoll)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-timer.C:
		}
	}
}
