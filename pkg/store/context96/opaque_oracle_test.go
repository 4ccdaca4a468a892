package context96_test

import (
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/store/context96"
)

// Crafted sessions whose newest boundary keeps from an id no entry has
// (testdata/opaque/*.jsonl; *.context.json is the oracle's `context` answer
// on each, after its in-process import, default budget): when that id is
// the lost parent of an entry the bounded read hands the session manager,
// 9.6 keeps from the entry before it (an opaque parent, resolved by
// resolveOpaqueSessionFirstKeptEntryId), with one boundary or two; when it
// is no one's parent, nothing before the boundary is kept. The shapes of
// the 2026.9.6 campaign of 5 December (seed 3508, fz-0102 and fz-0146).
func TestBuildBoundedResolvesOpaqueFirstKept(t *testing.T) {
	compared := compareBounded(t, "opaque", context96.DefaultContextTokens, false)
	oracletest.Compared(t, "2026.9.6 context of boundaries keeping from a lost parent equals the oracle's", compared, 3)
}
