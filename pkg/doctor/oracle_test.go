package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/jsondoc"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// corpusStores copies every cron store of the corpus (with its state sidecar
// and sessions.json when the same install has them) into its own temp state
// dir, laid out as OpenClaw lays it out. The corpus itself is never written.
func corpusStores(t *testing.T) map[string]string {
	t.Helper()
	dir := oracletest.CorpusDir(t)
	stores, _ := filepath.Glob(filepath.Join(dir, "*__cron__jobs.json"))
	if len(stores) == 0 {
		t.Fatalf("no cron stores (*__cron__jobs.json) in %s", dir)
	}
	out := map[string]string{}
	for _, s := range stores {
		prefix := strings.TrimSuffix(filepath.Base(s), "cron__jobs.json")
		sd := t.TempDir()
		cp := func(src, dst string) {
			b, err := os.ReadFile(src)
			if err != nil {
				return
			}
			_ = os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cp(s, filepath.Join(sd, "cron", "jobs.json"))
		cp(filepath.Join(dir, prefix+"cron__jobs-state.json"), filepath.Join(sd, "cron", "jobs-state.json"))
		cp(filepath.Join(dir, prefix+"agents__main__sessions__sessions.json"), filepath.Join(sd, "agents", "main", "sessions", "sessions.json"))
		out[prefix] = sd
	}
	return out
}

// The real stores load, classify and round-trip: writing without changes
// gives the same parsed JSON (and here, the same bytes), and --fix leaves them
// alone (none of them has a session:<key> job).
func TestCorpusStoresRoundTrip(t *testing.T) {
	for name, sd := range corpusStores(t) {
		store := filepath.Join(sd, "cron", "jobs.json")
		raw, err := os.ReadFile(store)
		if err != nil {
			t.Fatal(err)
		}
		s, err := LoadCronStore(store, 0)
		if err != nil || s == nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := jsondoc.Marshal(s.Root)
		var a, b any
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("%s: written store is not JSON: %v", name, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: round trip changed the parsed JSON", name)
		}
		if string(out) != strings.TrimRight(string(raw), "\n") {
			t.Errorf("%s: round trip changed bytes", name)
		}
		before := checksums(t, sd)
		r := runDoctor(t, sd, true)
		if len(r.Cron.Jobs) != len(s.Jobs) {
			t.Errorf("%s: %d jobs reported, %d in the store", name, len(r.Cron.Jobs), len(s.Jobs))
		}
		for _, c := range r.Changes {
			if strings.HasPrefix(c.Path, filepath.Join(sd, "cron")) {
				t.Errorf("%s: --fix changed %s", name, c.Path)
			}
		}
		after := checksums(t, sd)
		for p, sum := range before {
			if strings.Contains(p, "cron") && after[p] != sum {
				t.Errorf("%s: %s changed", name, p)
			}
		}
	}
}

type oracleCron struct {
	Store struct {
		Jobs []map[string]any `json:"jobs"`
	} `json:"store"`
	Errors []struct {
		ID    string `json:"id"`
		Error string `json:"error"`
	} `json:"errors"`
}

// Differential test: every store `--fix` writes loads in OpenClaw 2026.5.6
// (its own loadCronStore + assertSupportedJobSpec) with no error the original
// did not have, and every job keeps its next run time.
func TestFixedStoresLoadInOpenClaw(t *testing.T) {
	type pair struct{ name, before, after string }
	var pairs []pair
	var jobs []oracletest.Job
	add := func(name, stateDir string) {
		orig := t.TempDir()
		copyInto(t, filepath.Join(stateDir, "cron"), filepath.Join(orig, "cron"))
		runDoctor(t, stateDir, true)
		p := pair{name, filepath.Join(orig, "cron", "jobs.json"), filepath.Join(stateDir, "cron", "jobs.json")}
		pairs = append(pairs, p)
		jobs = append(jobs, oracletest.Job{ID: name + "|before", Mode: "cron", Args: []string{p.before}}, oracletest.Job{ID: name + "|after", Mode: "cron", Args: []string{p.after}})
	}
	entries, _ := os.ReadDir(fixturesDir(t))
	for _, e := range entries {
		if e.IsDir() {
			add(e.Name(), copyTree(t, filepath.Join(fixturesDir(t), e.Name())))
		}
	}
	for name, sd := range corpusStores(t) {
		add("corpus:"+name, sd)
	}
	res := oracletest.Batch(t, jobs, 5*time.Minute)
	withNext, compared := 0, 0
	for _, p := range pairs {
		b, a := res[p.name+"|before"], res[p.name+"|after"]
		if !a.OK {
			if b.OK {
				t.Errorf("%s: OpenClaw cannot load the store --fix wrote: %s", p.name, a.Error)
			} else {
				compared++ // OpenClaw cannot load it before or after: --fix made nothing worse
			}
			continue
		}
		var before, after oracleCron
		if b.OK {
			if err := json.Unmarshal(b.Out, &before); err != nil {
				t.Fatalf("%s: oracle answer before --fix: %v", p.name, err)
			}
		}
		if err := json.Unmarshal(a.Out, &after); err != nil {
			t.Fatalf("%s: oracle answer after --fix: %v", p.name, err)
		}
		compared++
		old := map[string]bool{}
		for _, e := range before.Errors {
			old[e.ID+"|"+e.Error] = true
		}
		for _, e := range after.Errors {
			if !old[e.ID+"|"+e.Error] {
				t.Errorf("%s: new OpenClaw error for job %s: %s", p.name, e.ID, e.Error)
			}
		}
		next := func(o oracleCron) map[string]any {
			m := map[string]any{}
			for _, j := range o.Store.Jobs {
				id, _ := j["id"].(string)
				st, _ := j["state"].(map[string]any)
				m[id] = st["nextRunAtMs"]
			}
			return m
		}
		nb, na := next(before), next(after)
		ids := make([]string, 0, len(nb))
		for id := range nb {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			if nb[id] != nil {
				withNext++
			}
			if nb[id] != na[id] {
				t.Errorf("%s: job %s next run %v -> %v", p.name, id, nb[id], na[id])
			}
		}
		if len(nb) != len(na) {
			t.Errorf("%s: %d jobs before, %d after", p.name, len(nb), len(na))
		}
	}
	if withNext == 0 {
		t.Error("no job with a next run time was compared")
	}
	oracletest.Compared(t, "cron stores loaded by OpenClaw before and after --fix (fixtures + corpus stores)", compared, len(pairs))
}

func copyInto(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		return
	}
	_ = os.MkdirAll(dst, 0o755)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
