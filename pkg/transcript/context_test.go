package transcript

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
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
// context must equal its context as JSON values, built both ways: by
// LoadContext (index, then the branch's lines) and by the Summary of an
// analysis (the lines its read found, no second index: what inspect uses).
func TestContextMatchesStoredOracleAnswers(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	loaders := []struct {
		name string
		load func(path string) (*Context, error)
	}{
		{"LoadContext", func(path string) (*Context, error) { return LoadContext(path, nil) }},
		{"Summary.Context", func(path string) (*Context, error) {
			s, err := AnalyzeFile(File{Path: path}, nil)
			if err != nil {
				return nil, err
			}
			return s.Context()
		}},
	}
	compared := 0
	for _, f := range files {
		name := filepath.Base(f)
		a, ok := answers[name+"|context"]
		if !ok || !a.OK {
			t.Errorf("%s: no stored context answer", name)
			continue
		}
		for _, l := range loaders {
			ctx, err := l.load(f)
			if err != nil {
				t.Errorf("%s: %s: %v", name, l.name, err)
				continue
			}
			got, err := json.Marshal(ctx)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if g, w := jsonValue(t, got), jsonValue(t, a.Out); !reflect.DeepEqual(g, w) {
				gm, wm := g.(map[string]any), w.(map[string]any)
				t.Errorf("%s: %s: context differs: %d vs oracle %d messages; thinking %v vs %v; model %v vs %v",
					name, l.name, len(gm["messages"].([]any)), len(wm["messages"].([]any)), gm["thinkingLevel"], wm["thinkingLevel"], gm["model"], wm["model"])
				continue
			}
			compared++
		}
	}
	oracletest.Compared(t, "stored context answers equal (corpus transcripts, both loaders)", compared, len(loaders)*len(files))
}

// A report keeps every transcript's summary: Inspect drops the lines of
// each one's context once its findings are made (MoreFindings read them
// through Summary.Context), and a summary of stdin cannot be read again.
func TestInspectDropsContextLinesAfterFindings(t *testing.T) {
	state := filepath.Join("..", "..", "testdata", "example-state")
	asked := 0
	var mu sync.Mutex
	rep, err := Inspect(context.Background(), []string{state}, InspectOptions{
		MoreFindings: func(f File, s *Summary) []Finding {
			ctx, err := s.Context()
			if err != nil {
				t.Errorf("%s: %v", f.Path, err)
				return nil
			}
			want, err := LoadContext(f.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ctx, want) {
				t.Errorf("%s: the summary's context differs from LoadContext's", f.Path)
			}
			mu.Lock()
			asked++
			mu.Unlock()
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if asked == 0 || asked != len(rep.Transcripts) {
		t.Fatalf("MoreFindings ran for %d of %d transcripts", asked, len(rep.Transcripts))
	}
	for _, s := range rep.Transcripts {
		if s.context != nil {
			t.Errorf("%s: the report still holds the context's lines", s.Path)
		}
	}
	s, err := AnalyzeFile(File{Path: "-"}, strings.NewReader(`{"type":"session","version":3,"id":"s"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Context(); err == nil {
		t.Error("the summary of stdin built a context: it has no file to read again")
	}
}

// A writer that appends between the analysis and the replay findings (the
// gateway answering meanwhile) changes the file: Summary.Context then reads
// it afresh instead of reading the lines the analysis saw.
func TestSummaryContextRereadsAChangedFile(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "example-state", "agents", "main", "sessions", "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := AnalyzeFile(File{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"message","id":"a0000010","parentId":"a000000f","timestamp":"2026-05-17T06:41:00.000Z","message":{"role":"user","content":"one more"}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	want, err := LoadContext(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Messages) != len(before.Messages)+1 || !reflect.DeepEqual(after, want) {
		t.Fatalf("after an append: %d messages, LoadContext %d (before the append %d)", len(after.Messages), len(want.Messages), len(before.Messages))
	}
}
