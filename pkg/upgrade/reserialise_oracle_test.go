package upgrade

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// Issue 32 §4: what 2026.9.6's import changes when it re-serialises a line
// (reserialise.go), predicted line by line and checked against the events
// its import stored. testdata/reserialised is a state dir with a repeated
// key (line 2) and odd numbers (line 3); the stored event_json of those
// lines is kept in testdata/reserialised.oracle.json (OC_UPGRADE_ORACLE=write
// regenerates it, OC_LIVE_ORACLE=1 asks the oracle).
func TestReserialisedOracle(t *testing.T) {
	const dir, stored = "testdata/reserialised", "testdata/reserialised.oracle.json"
	mode := os.Getenv("OC_UPGRADE_ORACLE")
	if mode == "" && os.Getenv(oracletest.LiveEnv) != "" {
		mode = "live"
	}
	root := t.TempDir()
	copyTree(t, dir, root)
	rep, err := PredictStateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Sessions[0].Result
	var got []string
	for _, rw := range res.Rewrites {
		got = append(got, fmt.Sprintf("%d %s", rw.Line, rw.Kind))
	}
	want := []string{"2 duplicate-key", "3 number-overflow", "3 number-rounded", "3 negative-zero", "3 number-rounded"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("predicted %q, want %q", got, want)
	}

	events := map[string]string{} // line -> the event_json 9.6 stored
	if mode == "" {
		b, err := os.ReadFile(stored)
		if err != nil {
			t.Fatalf("stored oracle answers: %v (regenerate with OC_UPGRADE_ORACLE=write)", err)
		}
		if err := json.Unmarshal(b, &events); err != nil {
			t.Fatal(err)
		}
	} else {
		o := oracleImportDir(t, root)
		db, err := sql.Open("sqlite", "file:"+filepath.Join(o.out, "agents", "main", "agent", "openclaw-agent.sqlite")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.Query(`SELECT event_json FROM transcript_events WHERE json_extract(event_json, '$.id') IN ('m1', 'm2') ORDER BY seq`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		line := 2
		for rows.Next() {
			var ev string
			if err := rows.Scan(&ev); err != nil {
				t.Fatal(err)
			}
			events[fmt.Sprint(line)] = ev
			line++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	checks := []struct{ line, has, hasNot string }{
		{"2", `"content":"second"`, "first secret"},
		{"3", `"n":null`, "1e400"},
		{"3", `"big":1.2345678901234568e+22`, "12345678901234567890123"},
		{"3", `"z":0,`, `"z":-0`},
		{"3", `12345678901234568]`, "12345678901234567]"},
	}
	for _, c := range checks {
		ev := events[c.line]
		if !strings.Contains(ev, c.has) || strings.Contains(ev, c.hasNot) {
			t.Errorf("line %s as 9.6 stored it: %s; want %s and no %s", c.line, ev, c.has, c.hasNot)
		}
	}
	// the numbers 9.6 keeps as they are spelled are not named
	if !strings.Contains(events["3"], "[1,100,0.1,-5,") {
		t.Errorf("line 3 stored %s", events["3"])
	}
	oracletest.Compared(t, "re-serialised values of 2026.9.6's import", len(checks), 5)
	if mode == "write" {
		b, _ := json.MarshalIndent(events, "", " ")
		if err := os.WriteFile(stored, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
