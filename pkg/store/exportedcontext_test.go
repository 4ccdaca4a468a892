package store_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// A SQLite session with no rows is an empty session in 2026.9.6: the
// oracle's context answer on one (a crafted transcript whose message line
// is not valid UTF-8, imported by 9.6 with 0 events) is
// {"messages":[],"thinkingLevel":"off","model":null}. A JSONL file with no
// entry stays "not an OpenClaw transcript" (2026.5.6's reading).
func TestExportedContextOfASessionWithNoRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, err := store.ExportedContext(path, 0)
	if err != nil {
		t.Fatalf("session with no rows: %v", err)
	}
	got, err := json.Marshal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"messages":[],"thinkingLevel":"off","model":null}`; string(got) != want {
		t.Errorf("context %s, want the oracle's %s", got, want)
	}
	if _, err := transcript.LoadContext(path, nil); !errors.Is(err, transcript.ErrNotTranscript) {
		t.Errorf("an empty JSONL file: %v, want %v", err, transcript.ErrNotTranscript)
	}
	// With rows, the exported file is read as before.
	line := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, err = store.ExportedContext(path, 2)
	if err != nil || len(ctx.Messages) != 1 {
		t.Fatalf("two rows: %v, %v", ctx, err)
	}
}
