package repair

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Issue 33, the parentId cycle, against both releases: before the repair
// OpenClaw 2026.5.6's `context` does not return (run with a timeout);
// after it, it returns; 2026.9.6 reads the same messages before and after
// (the link the rule cuts is the one 9.6 cuts). The fixtures are
// testdata/cycle/*.jsonl; the oracles' answers are stored in
// testdata/cycle/oracle.json (OC_REPAIR_ORACLE=write regenerates them,
// OC_LIVE_ORACLE=1 asks the oracles: a few minutes, as each 5.6 run on a
// cycle waits for its timeout).

const cycleStored = "testdata/cycle/oracle.json"

// cycleHang is how long a 5.6 context run may take before it counts as
// hung (a normal one takes 2-3 s; the machine may be busy).
const cycleHang = 60 * time.Second

type storedCycle struct {
	Digest, RepairedDigest string
	// Hung56: 2026.5.6's context did not return within cycleHang.
	BeforeHung56 bool            `json:"beforeHung56"`
	After56      json.RawMessage `json:"after56"`
	Before96     json.RawMessage `json:"before96"`
	After96      json.RawMessage `json:"after96"`
}

func digestOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// oracleContext runs one oracle's `context` on path: its messages, or
// hung when it had not answered after limit.
func oracleContext(t *testing.T, script, path string, limit time.Duration) (messages json.RawMessage, hung bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := oracletest.Command(ctx, script, "context", path)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, true
	}
	if err != nil {
		t.Fatalf("%s context %s: %v\n%s", script, path, err, errOut.String())
	}
	var doc struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%s context %s: %v", script, path, err)
	}
	return doc.Messages, false
}

func TestParentCycleOracles(t *testing.T) {
	mode := os.Getenv("OC_REPAIR_ORACLE")
	if mode == "" && os.Getenv(oracletest.LiveEnv) != "" {
		mode = "live"
	}
	stored := map[string]storedCycle{}
	if mode == "" {
		b, err := os.ReadFile(cycleStored)
		if err != nil {
			t.Fatalf("stored oracle answers: %v (regenerate with OC_REPAIR_ORACLE=write)", err)
		}
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
	}
	var o56, o96 string
	if mode != "" {
		o56, o96 = oracletest.Oracle(t), oracletest.Oracle96(t)
	}
	names, _ := filepath.Glob("testdata/cycle/*.jsonl")
	compared := 0
	for _, src := range names {
		name := filepath.Base(src)
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), name)
			b, _ := os.ReadFile(src)
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			s := stored[name]
			if mode == "" && s.Digest != digestOf(t, file) {
				t.Fatal("the fixture differs from the one the stored answers describe: regenerate with OC_REPAIR_ORACLE=write")
			}
			// oc finds the cycle before, not after
			sum, err := transcript.AnalyzeFile(transcript.File{Path: file}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !hasRule(sum, "parent-cycle") {
				t.Fatal("oc inspect does not report the cycle")
			}
			if mode != "" {
				s = storedCycle{Digest: digestOf(t, file)}
				_, s.BeforeHung56 = oracleContext(t, o56, file, cycleHang)
				s.Before96, _ = oracleContext(t, o96, file, 5*time.Minute)
			}
			rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rules[RuleParentCycle] == 0 {
				t.Fatalf("oc repair did not cut the cycle: %+v", rep.Rules)
			}
			if sum, err = transcript.AnalyzeFile(transcript.File{Path: file}, nil); err != nil || hasRule(sum, "parent-cycle") {
				t.Fatalf("a cycle is left after oc repair (%v)", err)
			}
			repaired := digestOf(t, file)
			if mode == "" && s.RepairedDigest != repaired {
				t.Fatal("the repaired file differs from the one the stored answers describe: regenerate with OC_REPAIR_ORACLE=write")
			}
			if mode != "" {
				s.RepairedDigest = repaired
				var hung bool
				if s.After56, hung = oracleContext(t, o56, file, cycleHang); hung {
					t.Fatal("2026.5.6's context still hangs after oc repair")
				}
				s.After96, _ = oracleContext(t, o96, file, 5*time.Minute)
				stored[name] = s
			}
			if !s.BeforeHung56 {
				t.Error("2026.5.6's context returned before the repair: the fixture has no cycle it walks")
			}
			var after56, before96, after96 []json.RawMessage
			for _, x := range []struct {
				raw json.RawMessage
				to  *[]json.RawMessage
			}{{s.After56, &after56}, {s.Before96, &before96}, {s.After96, &after96}} {
				if err := json.Unmarshal(x.raw, x.to); err != nil {
					t.Fatalf("stored messages: %v", err)
				}
			}
			if len(after56) == 0 || len(before96) == 0 {
				t.Fatalf("2026.5.6 after: %d messages, 2026.9.6 before: %d; want a branch", len(after56), len(before96))
			}
			if diff := oracletest.Difference(s.After96, s.Before96); diff != "" {
				t.Errorf("2026.9.6 reads another branch after oc repair: %s", diff)
			}
			if len(after56) != len(after96) {
				t.Errorf("after oc repair 2026.5.6 reads %d messages, 2026.9.6 %d: want the same branch", len(after56), len(after96))
			}
			compared++
		})
	}
	oracletest.Compared(t, "parent cycles: 5.6 context returns and 9.6 reads the same branch after oc repair", compared, 4)
	if mode == "write" {
		b, err := json.MarshalIndent(stored, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cycleStored, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func hasRule(s *transcript.Summary, rule string) bool {
	for _, f := range s.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}
