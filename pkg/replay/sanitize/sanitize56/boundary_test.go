package sanitize56

import (
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// ---- LLM boundary ----

func TestBoundaryDropsHistoricalRuntimeContext(t *testing.T) {
	rc := func(s string) sanitize.Message {
		return jsvalue.NewObject("role", "custom", "customType", sanitize.RuntimeContextCustomType, "content", s)
	}
	user := jsvalue.NewObject("role", "user", "content", "u")
	got := sanitize.StripHistoricalRuntimeContext([]sanitize.Message{rc("old"), user, rc("current")}, runtimeContextAfterLastUser)
	if len(got) != 2 || got[1].Get("content") != "current" {
		t.Errorf("kept %v", got)
	}
	if got := sanitize.StripHistoricalRuntimeContext([]sanitize.Message{rc("a")}, runtimeContextAfterLastUser); len(got) != 0 {
		t.Errorf("without a user message all go: %v", got)
	}
	in := []sanitize.Message{user}
	if got := sanitize.StripHistoricalRuntimeContext(in, runtimeContextAfterLastUser); &got[0] != &in[0] {
		t.Error("unchanged input should be returned as is")
	}
}
