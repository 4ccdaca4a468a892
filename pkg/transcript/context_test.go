package transcript

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// jsonValue parses JSON into plain Go values for a comparison as JSON values.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("bad JSON %q: %v", b, err)
	}
	return v
}

// The stored answers of OpenClaw 2026.5.6 for every corpus transcript: our
// context must equal its context as JSON values.
func TestContextMatchesStoredOracleAnswers(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	compared := 0
	for _, f := range files {
		name := filepath.Base(f)
		a, ok := answers[name+"|context"]
		if !ok || !a.OK {
			t.Errorf("%s: no stored context answer", name)
			continue
		}
		ctx, err := LoadContext(f, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got, err := json.Marshal(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g, w := jsonValue(t, got), jsonValue(t, a.Out); !reflect.DeepEqual(g, w) {
			gm, wm := g.(map[string]any), w.(map[string]any)
			t.Errorf("%s: context differs: %d vs oracle %d messages; thinking %v vs %v; model %v vs %v",
				name, len(gm["messages"].([]any)), len(wm["messages"].([]any)), gm["thinkingLevel"], wm["thinkingLevel"], gm["model"], wm["model"])
			continue
		}
		compared++
	}
	oracletest.Compared(t, "stored context answers equal (corpus transcripts)", compared, len(files))
}
