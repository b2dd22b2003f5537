package session

import (
	"math"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
)

func TestTokenStatsCountEachMessageOnceAndPriceIt(t *testing.T) {
	var ts TokenStats
	u := &transcript.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000}
	turn := &transcript.ChatTurn{Role: "assistant", Model: "claude-sonnet-4-20250514", MessageID: "msg_1", Usage: u}
	ts.Add("s1", turn)
	ts.Add("s1", turn) // the same message streamed over a second line
	ts.Add("s2", turn) // another session's message with the same id counts
	ts.Add("s1", &transcript.ChatTurn{Model: "mystery-model", MessageID: "msg_2", Usage: &transcript.Usage{OutputTokens: 7}})
	ts.Add("s1", &transcript.ChatTurn{Model: "claude-sonnet-4", Text: "no usage"})
	if ts.InputTokens != 2_000_000 || ts.OutputTokens != 200_007 || ts.CacheReadTokens != 4_000_000 {
		t.Errorf("tokens %+v", ts)
	}
	// sonnet: $3/M input, $15/M output, $0.30/M cache read → 3 + 1.5 + 0.6 per message
	if want := 2 * 5.1; math.Abs(ts.CostUSD-want) > 1e-9 || ts.UnpricedTokens != 7 {
		t.Errorf("cost %.4f (want %.4f), unpriced %d", ts.CostUSD, want, ts.UnpricedTokens)
	}
	if _, ok := EstimateCost("gpt-5.1-codex", *u); !ok {
		t.Error("gpt-5 family not priced")
	}
}
