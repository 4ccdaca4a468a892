package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// TestFastOracleEqualsStock proves -oracle56 fast: the same generated jobs
// (seed 7, every route, as difffuzz builds them) go through the stock
// shared 2026.5.6 oracle and through scripts/difffuzz/oracle56/oracle, one
// batch process each, and every answer must be byte for byte the same
// (ok, error text, and the out JSON), except Date.now() values OpenClaw
// writes into synthetic results ("timestamp" numbers within the run's own
// time) and repair's backup name (<file>.bak-<pid>-<Date.now()>). It logs jobs a minute on both sides. OC_FAST_EQ_N sets the number
// of transcripts (default 2, about 100 jobs: 4-5 minutes on the stock
// side).
//
//	OC_LIVE_ORACLE=1 OC_FAST_EQ_N=6 go test -count=1 -v -timeout 2h -run TestFastOracleEqualsStock ./scripts/difffuzz
func TestFastOracleEqualsStock(t *testing.T) {
	oracletest.RequireLive(t, "fast vs stock 2026.5.6 oracle")
	shared := oracletest.SharedDir(t)
	oracletest.Oracle(t) // installed, or skip/fail as every differential test
	n := 2
	if v := os.Getenv("OC_FAST_EQ_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("OC_FAST_EQ_N=%q: want a positive number", v)
		}
	}
	routes, err := parseRoutes("all")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := corpusEntries(filepath.Join(shared, "corpus", "real"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := generateFiles(n, 7, entries, routes, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := jobs56(files, routes, true, true)

	stock, err := oracle56For("stock", shared)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := oracle56For("fast", shared)
	if err != nil {
		t.Fatal(err)
	}
	type side struct {
		name    string
		answers map[string]oracletest.Result
		from    int64 // the run's time span, milliseconds since 1970
		to      int64
	}
	runSide := func(name string, o oracle56Cmd) side {
		load, _ := os.ReadFile("/proc/loadavg")
		start := time.Now()
		res, err := batch(o.script, jobs, o.env, 90*time.Minute)
		if err != nil {
			t.Fatalf("%s oracle: %v (%d of %d answered)", name, err, len(res), len(jobs))
		}
		d := time.Since(start)
		t.Logf("%s oracle: %d jobs in %s, %.1f jobs a minute (load average before: %s)",
			name, len(jobs), d.Round(time.Second), float64(len(jobs))/d.Minutes(), strings.TrimSpace(string(load)))
		return side{name, res, start.UnixMilli(), time.Now().UnixMilli()}
	}
	f := runSide("fast", fast)
	s := runSide("stock", stock)

	compared, identical, raw := 0, 0, 0
	for _, j := range jobs {
		a, okA := s.answers[j.ID]
		b, okB := f.answers[j.ID]
		if !okA || !okB {
			t.Errorf("%s: answered by stock %v, fast %v", j.ID, okA, okB)
			continue
		}
		compared++
		if a.OK == b.OK && a.Error == b.Error && bytes.Equal(a.Out, b.Out) {
			raw++
		}
		if a.OK != b.OK || a.Error != b.Error || !bytes.Equal(nowless(a.Out, s.from, s.to), nowless(b.Out, f.from, f.to)) {
			t.Errorf("%s: fast and stock answers differ:\n stock: ok %v %.300s %.300s\n fast:  ok %v %.300s %.300s", j.ID, a.OK, a.Error, a.Out, b.OK, b.Error, b.Out)
			continue
		}
		identical++
	}
	oracletest.Compared(t, "fast vs stock 2026.5.6 oracle answers", compared, len(jobs))
	t.Logf("%d of %d answers identical (%d byte for byte as printed, the rest after Date.now() timestamps and backup names)", identical, compared, raw)
}

var (
	timestampRE  = regexp.MustCompile(`"timestamp":(\d{13})\b`)
	backupNameRE = regexp.MustCompile(`("backupPath":"[^"\\]*\.bak-)\d+-\d{13}"`)
)

// nowless replaces the "timestamp" numbers of out that fall within
// [from-1s, to+1s] (Date.now() while that oracle ran) with "now", and the
// process id and time in repair's backup name with "PID-NOW".
func nowless(out []byte, from, to int64) []byte {
	out = backupNameRE.ReplaceAll(out, []byte(`${1}PID-NOW"`))
	return timestampRE.ReplaceAllFunc(out, func(m []byte) []byte {
		v, err := strconv.ParseInt(string(m[len(`"timestamp":`):]), 10, 64)
		if err == nil && v >= from-1000 && v <= to+1000 {
			return []byte(`"timestamp":"now"`)
		}
		return m
	})
}

func TestNowless(t *testing.T) {
	in := []byte(`[{"timestamp":1777786001313},{"timestamp":1800000000500,"x":"\"timestamp\":1800000000600"}]`)
	got := string(nowless(in, 1800000000000, 1800000001000))
	want := `[{"timestamp":1777786001313},{"timestamp":"now","x":"\"timestamp\":1800000000600"}]`
	if got != want {
		t.Errorf("nowless:\n got %s\nwant %s", got, want)
	}
	a := nowless([]byte(`{"result":{"backupPath":"fz-0004.jsonl.bak-4804-1796106766741"},"output":"x"}`), 0, 0)
	b := nowless([]byte(`{"result":{"backupPath":"fz-0004.jsonl.bak-4169-1796104475514"},"output":"x"}`), 0, 0)
	if string(a) != string(b) || !strings.Contains(string(a), `fz-0004.jsonl.bak-PID-NOW"`) {
		t.Errorf("nowless backup names: %s vs %s", a, b)
	}
	if c := nowless([]byte(`{"result":{"backupPath":"fz-0005.jsonl.bak-4169-1796104475514"}}`), 0, 0); string(c) == string(a) {
		t.Errorf("nowless hides the file name of a backup: %s", c)
	}
}
