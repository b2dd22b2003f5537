package report

import (
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/session"
)

// TestCostByModelOrder: models are listed dearest first, and those that
// cost the same by name, the same every time (they came from a map).
func TestCostByModelOrder(t *testing.T) {
	st := &session.CommandStats{Tokens: session.TokenStats{InputTokens: 10, CostUSD: 3,
		ByModel: map[string]float64{"model-d": 1, "model-b": 0, "model-c": 2, "model-a": 0, "model-e": 0}}}
	var b strings.Builder
	tokensAndDisk(&b, st)
	var order []string
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[0], "model-") {
			order = append(order, f[0])
		}
	}
	if got, want := strings.Join(order, " "), "model-c model-d model-a model-b model-e"; got != want {
		t.Errorf("models listed %s, want %s:\n%s", got, want, b.String())
	}
}
