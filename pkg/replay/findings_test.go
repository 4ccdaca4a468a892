package replay

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Inspect replays a context up to FindingsContextLimit unasked; past it the
// finding says so and how to get the replay findings.
func TestSkippedFinding(t *testing.T) {
	_, skip := SkippedFinding(FindingsContextLimit, "big.jsonl")
	require.False(t, skip)
	f, skip := SkippedFinding(FindingsContextLimit+1, "'my big.jsonl'")
	require.True(t, skip)
	require.Equal(t, FindingReplaySkipped, f.Rule)
	require.Contains(t, f.Message, "--replay")
	require.Contains(t, f.Message, "oc replay 'my big.jsonl' --provider all")
}
