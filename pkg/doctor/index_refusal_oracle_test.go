package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// Issue 33: a sessions.json 2026.9.6's import cannot read (store_unreadable)
// or that is not an object (store_not_object) is a blocking issue: its
// `openclaw doctor --fix` refuses the migration of the whole state dir.
// oc doctor reports both as errors. The oracle's refusals are stored in
// testdata/index-refusal/oracle.json (OC_DOCTOR_ORACLE=write regenerates
// them, OC_LIVE_ORACLE=1 asks the oracle).
func TestIndexRefusalsPredicted(t *testing.T) {
	const stored = "testdata/index-refusal/oracle.json"
	mode := os.Getenv("OC_DOCTOR_ORACLE")
	if mode == "" && os.Getenv(oracletest.LiveEnv) != "" {
		mode = "live"
	}
	answers := map[string][]string{}
	if mode == "" {
		b, err := os.ReadFile(stored)
		if err != nil {
			t.Fatalf("stored oracle answers: %v (regenerate with OC_DOCTOR_ORACLE=write)", err)
		}
		if err := json.Unmarshal(b, &answers); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ name, code, finding string }{
		{"unparsable", "store_unreadable", "sessions-index-unreadable"},
		{"not-object", "store_not_object", "sessions-index-invalid"},
	}
	for _, c := range cases {
		dir := filepath.Join("testdata", "index-refusal", c.name)
		if mode != "" {
			answers[c.name] = oracleRefusalCodes(t, dir)
		}
		if got := answers[c.name]; len(got) != 1 || got[0] != c.code {
			t.Errorf("%s: the oracle refused with %q, want [%s]", c.name, got, c.code)
		}
		r := runDoctor(t, dir, false)
		found := false
		for _, f := range r.Findings {
			if f.ID == c.finding && f.Severity == SevError {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: doctor reports no %s error: %+v", c.name, c.finding, r.Findings)
		}
	}
	oracletest.Compared(t, "sessions.json refusals of 2026.9.6's import", len(answers), len(cases))
	if mode == "write" {
		b, _ := json.MarshalIndent(answers, "", " ")
		if err := os.WriteFile(stored, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// oracleRefusalCodes runs the 9.6 oracle's import of dir (on a copy) and
// returns the issue codes of the migrations it refused.
func oracleRefusalCodes(t *testing.T, dir string) []string {
	t.Helper()
	script := oracletest.Oracle96(t)
	var stdout, stderr bytes.Buffer
	err := oracletest.RunOnceMoreIfHung(t, 5*time.Minute, func(ctx context.Context) *exec.Cmd {
		stdout.Reset()
		stderr.Reset()
		cmd := oracletest.Command(ctx, script, "import", dir, filepath.Join(t.TempDir(), "imported"))
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return cmd
	})
	if err != nil {
		t.Fatalf("oracle import %s: %v\n%s", dir, err, stderr.String())
	}
	var out struct {
		Refusals []struct {
			Issues []struct {
				Code string `json:"code"`
			} `json:"issues"`
		} `json:"refusals"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, r := range out.Refusals {
		for _, i := range r.Issues {
			codes = append(codes, i.Code)
		}
	}
	return codes
}
