package session

import (
	"strings"

	"github.com/cuff-dev/cuff/transcript"
)

// price is what a model's tokens cost, in US dollars per million tokens.
type price struct {
	input, output, cacheRead, cacheWrite float64
}

// prices are public list prices, matched by the first fragment found in the
// lower-cased model name (more specific fragments first). Costs computed
// from them are estimates: prices change and discounts are not known.
var prices = []struct {
	fragment string
	price    price
}{
	{"opus-4-5", price{5, 25, 0.5, 6.25}},
	{"opus-4.5", price{5, 25, 0.5, 6.25}},
	{"opus", price{15, 75, 1.5, 18.75}},
	{"sonnet", price{3, 15, 0.3, 3.75}},
	{"haiku-4", price{1, 5, 0.1, 1.25}},
	{"haiku", price{0.8, 4, 0.08, 1}},
	{"gpt-5-nano", price{0.05, 0.4, 0.005, 0}},
	{"gpt-5-mini", price{0.25, 2, 0.025, 0}},
	{"gpt-5", price{1.25, 10, 0.125, 0}},
	{"codex-mini", price{1.5, 6, 0.375, 0}},
	{"o4-mini", price{1.1, 4.4, 0.275, 0}},
	{"o3", price{2, 8, 0.5, 0}},
	{"gpt-4.1", price{2, 8, 0.5, 0}},
	{"gpt-4o", price{2.5, 10, 1.25, 0}},
}

// priceOf finds the price of a model, if cuff knows it.
func priceOf(model string) (price, bool) {
	m := strings.ToLower(model)
	for _, p := range prices {
		if strings.Contains(m, p.fragment) {
			return p.price, true
		}
	}
	return price{}, false
}

// EstimateCost is the list-price cost in US dollars of usage by model, and
// whether the model's price is known.
func EstimateCost(model string, u transcript.Usage) (float64, bool) {
	p, ok := priceOf(model)
	if !ok {
		return 0, false
	}
	const perToken = 1e-6
	return perToken * (float64(u.InputTokens)*p.input + float64(u.OutputTokens)*p.output +
		float64(u.CacheReadTokens)*p.cacheRead + float64(u.CacheWriteTokens)*p.cacheWrite), true
}

// TokenStats adds up token usage, each model message counted once.
type TokenStats struct {
	InputTokens      int64   `json:"input_tokens" yaml:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens" yaml:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens" yaml:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens" yaml:"cache_write_tokens"`
	CostUSD          float64 `json:"estimated_cost_usd" yaml:"estimated_cost_usd"`
	// UnpricedTokens are tokens of models whose price cuff does not know.
	UnpricedTokens int64 `json:"unpriced_tokens,omitempty" yaml:"unpriced_tokens,omitempty"`
	// ByModel is the estimated cost per model.
	ByModel map[string]float64 `json:"cost_by_model,omitempty" yaml:"cost_by_model,omitempty"`

	seen map[string]bool
}

// Add counts the usage of a chat turn, once per message id (Claude Code
// writes one message over several lines, each carrying its usage).
func (t *TokenStats) Add(sessionID string, turn *transcript.ChatTurn) {
	u := turn.Usage
	if u == nil {
		return
	}
	if turn.MessageID != "" {
		if t.seen == nil {
			t.seen = map[string]bool{}
		}
		key := sessionID + "/" + turn.MessageID
		if t.seen[key] {
			return
		}
		t.seen[key] = true
	}
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CacheReadTokens += u.CacheReadTokens
	t.CacheWriteTokens += u.CacheWriteTokens
	cost, ok := EstimateCost(turn.Model, *u)
	if !ok {
		t.UnpricedTokens += u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
		return
	}
	t.CostUSD += cost
	if t.ByModel == nil {
		t.ByModel = map[string]float64{}
	}
	t.ByModel[turn.Model] += cost
}

// Total is every token counted.
func (t *TokenStats) Total() int64 {
	return t.InputTokens + t.OutputTokens + t.CacheReadTokens + t.CacheWriteTokens
}

// merge adds the usage of other sessions (each session's messages were
// counted once on its own).
func (t *TokenStats) merge(o *TokenStats) {
	t.InputTokens += o.InputTokens
	t.OutputTokens += o.OutputTokens
	t.CacheReadTokens += o.CacheReadTokens
	t.CacheWriteTokens += o.CacheWriteTokens
	t.CostUSD += o.CostUSD
	t.UnpricedTokens += o.UnpricedTokens
	for model, cost := range o.ByModel {
		if t.ByModel == nil {
			t.ByModel = map[string]float64{}
		}
		t.ByModel[model] += cost
	}
}
