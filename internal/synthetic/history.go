package synthetic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// HistoryOptions shapes a Claude Code history: many sessions over many
// projects, spread over a period.
type HistoryOptions struct {
	// Sessions is how many sessions to write.
	Sessions int
	// Bytes is about how large they are together.
	Bytes int64
	// Projects is over how many project folders they are spread (default 40).
	Projects int
	// End is when the newest session ends (default now); Days is how many
	// days back the oldest starts (default 360).
	End  time.Time
	Days int
	// Seed makes the history repeatable.
	Seed uint64
}

// ClaudeHistory writes a Claude Code history under configDir (its
// projects/<folder>/<uuid>.jsonl files), the way months of use leave it:
// session sizes spread from a few kilobytes to tens of megabytes (a few
// big sessions hold much of the bytes), start times over the period. It
// returns the sessions written, oldest first.
func ClaudeHistory(configDir string, o HistoryOptions) ([]Transcript, error) {
	if o.Projects <= 0 {
		o.Projects = 40
	}
	if o.Days <= 0 {
		o.Days = 360
	}
	if o.End.IsZero() {
		o.End = time.Now()
	}
	if o.Sessions <= 0 {
		return nil, nil
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	// Sizes: log-normal, scaled to the total.
	sizes := make([]float64, o.Sessions)
	var sum float64
	for i := range sizes {
		sizes[i] = math.Exp(r.NormFloat64() * 1.4)
		sum += sizes[i]
	}
	starts := make([]time.Time, o.Sessions)
	span := time.Duration(o.Days) * 24 * time.Hour
	for i := range starts {
		starts[i] = o.End.Add(-span + time.Duration(r.Int64N(int64(span-6*time.Hour))))
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
	projects := make([]string, o.Projects)
	for i := range projects {
		projects[i] = fmt.Sprintf("%s-%s", strings.ToLower(identifiers[i%len(identifiers)]), words[(i*7)%len(words)])
	}
	out := make([]Transcript, 0, o.Sessions)
	for i := range o.Sessions {
		project := projects[r.IntN(len(projects))]
		folder := "-home-dev-" + project
		size := int64(sizes[i] / sum * float64(o.Bytes))
		id := newText(o.Seed+uint64(i)*7919, project).uuid()
		path := filepath.Join(configDir, "projects", folder, id+".jsonl")
		tr, err := WriteClaudeFile(path, ClaudeOptions{SessionID: id, Project: project, Start: starts[i], Bytes: max(size, 2<<10), Seed: o.Seed + uint64(i)})
		if err != nil {
			return out, fmt.Errorf("write session %d: %w", i, err)
		}
		out = append(out, tr)
	}
	return out, nil
}
