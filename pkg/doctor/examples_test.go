package doctor

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/jsondoc"
)

var fixedNow = time.Date(2026, 2, 18, 7, 33, 20, 0, time.UTC) // 1771400000000 ms

func fixturesDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "testdata", "doctor"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// copyTree copies a fixture state dir into a fresh temp dir.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// checksums maps every file under dir to its SHA-256.
func checksums(t testing.TB, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = sha256.Sum256(b)
		}
		return nil
	})
	return out
}

func runDoctor(t testing.TB, dir string, fix bool) *Report {
	t.Helper()
	r, err := Run(context.Background(), Options{StateDir: dir, Fix: fix, Now: func() time.Time { return fixedNow }, GatewayLockDir: filepath.Join(dir, "no-gateway-locks"), Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func classes(r *Report) map[string]string {
	out := map[string]string{}
	for _, j := range r.Cron.Jobs {
		if j.Classification == nil {
			out[j.ID] = "-"
			continue
		}
		out[j.ID] = string(*j.Classification) + "/" + string(*j.Reason)
	}
	return out
}

func loadJobs(t testing.TB, path string) map[string]*jsondoc.Value {
	t.Helper()
	s, err := LoadCronStore(path, 0)
	if err != nil || s == nil {
		t.Fatalf("load %s: %v", path, err)
	}
	out := map[string]*jsondoc.Value{}
	for _, j := range s.Jobs {
		out[JobID(j)] = j
	}
	return out
}

// The eight stores of research §13: classification, and what --fix writes.
func TestResearchExamples(t *testing.T) {
	cases := []struct {
		dir      string
		want     map[string]string
		migrated []string
	}{
		{"example1-main-isolated", map[string]string{"3f9a2c1e-7b44-4e0a-9d2f-1c5e8a7b6d40": "-", "b7e1d0c2-5a3f-4c8e-a1b2-9f0e3d4c5b6a": "-"}, nil},
		{"example2-implicit-in-chat", map[string]string{"c2a7e9f0-1b3d-4e5f-8a9b-0c1d2e3f4a5b": "IN_CHAT/same-route"}, nil},
		{"example3-same-chat-spelling", map[string]string{"d4b1f2e3-6c7a-4b8d-9e0f-1a2b3c4d5e6f": "IN_CHAT/same-route"}, nil},
		{"example4-dm-to-discord", map[string]string{"e5c2a3b4-7d8e-4f90-a1b2-c3d4e5f6a7b8": "ELSEWHERE/channel-differs"}, []string{"e5c2a3b4-7d8e-4f90-a1b2-c3d4e5f6a7b8"}},
		{"example5-topics", map[string]string{
			"f6d3b4c5-8e9f-4a01-b2c3-d4e5f6a7b8c9": "IN_CHAT/same-route",
			"07e4c5d6-9fa0-4b12-c3d4-e5f6a7b8c9d0": "ELSEWHERE/thread-differs",
			"18f5d6e7-a0b1-4c23-d4e5-f6a7b8c9d0e1": "IN_CHAT/thread-unspecified"}, []string{"07e4c5d6-9fa0-4b12-c3d4-e5f6a7b8c9d0"}},
		{"example6-era-b", map[string]string{
			"29a6e7f8-b1c2-4d34-e5f6-a7b8c9d0e1f2": "-",
			"3ab7f8a9-c2d3-4e45-f6a7-b8c9d0e1f2a3": "IN_CHAT/no-delivery",
			"4bc8a9b0-d3e4-4f56-a7b8-c9d0e1f2a3b4": "ELSEWHERE/named-session-no-chat-route",
			"5cd9b0c1-e4f5-4a67-b8c9-d0e1f2a3b4c5": "UNDECIDABLE/agent-mismatch"}, []string{"4bc8a9b0-d3e4-4f56-a7b8-c9d0e1f2a3b4"}},
		{"example7-legacy-shapes", map[string]string{
			"legacy-weather":          "ELSEWHERE/channel-differs",
			"legacy-payload-provider": "IN_CHAT/same-route",
			"legacy-notify":           "-"}, nil},
		{"example8-sqlite-era", map[string]string{"e5c2a3b4-7d8e-4f90-a1b2-c3d4e5f6a7b8": "ELSEWHERE/channel-differs"}, nil},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			dir := copyTree(t, filepath.Join(fixturesDir(t), c.dir))
			before := checksums(t, dir)
			check := runDoctor(t, dir, false)
			if got := classes(check); !mapsEqual(got, c.want) {
				t.Fatalf("classifications\n got %v\nwant %v", got, c.want)
			}
			if after := checksums(t, dir); !mapsEqual(before, after) {
				t.Fatal("check mode changed files")
			}
			store := filepath.Join(dir, "cron", "jobs.json")
			origJobs := loadJobs(t, store)

			fix := runDoctor(t, dir, true)
			var migrated []string
			for _, j := range fix.Cron.Jobs {
				if j.Migrated {
					migrated = append(migrated, j.ID)
				}
			}
			if strings.Join(migrated, ",") != strings.Join(c.migrated, ",") {
				t.Fatalf("migrated %v, want %v", migrated, c.migrated)
			}
			newJobs := loadJobs(t, store)
			for id, orig := range origJobs {
				nj := newJobs[id]
				if slices.Contains(c.migrated, id) {
					checkMigratedJob(t, orig, nj)
					continue
				}
				if !jsondoc.Equal(orig, nj) {
					t.Errorf("job %s changed:\n%s\n%s", id, jsondoc.MarshalCompact(orig), jsondoc.MarshalCompact(nj))
				}
			}
			if len(c.migrated) == 0 {
				if after := checksums(t, dir); !mapsEqual(before, after) {
					t.Fatal("--fix with nothing to migrate changed files")
				}
				return
			}
			// Backups of every changed file, and the report beside the store.
			if len(fix.Cron.Backups) == 0 || fix.Cron.MigrationReport == "" {
				t.Fatalf("no backup or report: %+v", fix.Cron)
			}
			for _, b := range fix.Cron.Backups {
				orig := strings.Split(b, ".pre-oc-doctor.")[0]
				if before[orig] != sha256Of(t, b) {
					t.Errorf("backup %s is not the original %s", b, orig)
				}
			}
			_, mf, _, err := readDoc(fix.Cron.MigrationReport, 0)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(mf.Get("jobs").Items); n != len(c.migrated) {
				t.Errorf("report names %d jobs", n)
			}
			for _, m := range mf.Get("jobs").Items {
				for _, k := range []string{"oldSessionTarget", "newSessionTarget", "route", "contextLoss"} {
					if m.Get(k) == nil {
						t.Errorf("report entry without %s", k)
					}
				}
			}
			st, _ := os.Stat(store)
			if st.Mode().Perm() != 0o600 {
				t.Errorf("store mode %v", st.Mode().Perm())
			}
			// Twice: nothing changes the second time.
			mid := checksums(t, dir)
			again := runDoctor(t, dir, true)
			if len(again.Changes) != 0 {
				t.Errorf("second --fix changed %v", again.Changes)
			}
			if after := checksums(t, dir); !mapsEqual(mid, after) {
				t.Error("second --fix changed files")
			}
		})
	}
}

func sha256Of(t testing.TB, p string) [32]byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// checkMigratedJob: target isolated, same keys in the same order apart from
// sessionKey (removed), delivery (explicit) and updatedAtMs; schedule,
// enabled, payload and state untouched.
func checkMigratedJob(t *testing.T, before, after *jsondoc.Value) {
	t.Helper()
	if s, _ := after.StringOf("sessionTarget"); s != "isolated" {
		t.Errorf("sessionTarget %q", s)
	}
	for _, k := range []string{"schedule", "enabled", "payload", "state", "id", "name", "createdAtMs", "wakeMode", "agentId"} {
		if !jsondoc.Equal(before.Get(k), after.Get(k)) {
			t.Errorf("%s changed", k)
		}
	}
	var bk, ak []string
	for _, m := range before.Members {
		if m.Key != "sessionKey" && m.Key != "updatedAtMs" && m.Key != "delivery" {
			bk = append(bk, m.Key)
		}
	}
	for _, m := range after.Members {
		if m.Key != "updatedAtMs" && m.Key != "delivery" {
			ak = append(ak, m.Key)
		}
	}
	if strings.Join(bk, ",") != strings.Join(ak, ",") {
		t.Errorf("key order changed:\n%v\n%v", bk, ak)
	}
	d := after.Get("delivery")
	if m, _ := d.StringOf("mode"); m != "announce" {
		t.Errorf("delivery mode %q", m)
	}
	if c, _ := d.StringOf("channel"); c == "" || c == "last" {
		t.Errorf("delivery channel %q", c)
	}
	if after.Has("sessionKey") {
		if sk, _ := after.StringOf("sessionKey"); "session:"+sk == sessionTargetOf(before) {
			t.Error("sessionKey equal to the key kept")
		}
	}
}

func TestExample4MatchesDocumentedAfter(t *testing.T) {
	dir := copyTree(t, filepath.Join(fixturesDir(t), "example4-dm-to-discord"))
	runDoctor(t, dir, true)
	_, got, _, err := readDoc(filepath.Join(dir, "cron", "jobs.json"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _, err := readDoc(filepath.Join(fixturesDir(t), "example4-dm-to-discord.expected-after.json"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !jsondoc.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", jsondoc.Marshal(got), jsondoc.Marshal(want))
	}
}

func TestExample6SidecarKeepsStateAndUpdatesEntry(t *testing.T) {
	dir := copyTree(t, filepath.Join(fixturesDir(t), "example6-era-b"))
	statePath := filepath.Join(dir, "cron", "jobs-state.json")
	_, before, _, _ := readDoc(statePath, 0)
	r := runDoctor(t, dir, true)
	_, after, _, _ := readDoc(statePath, 0)
	id := "4bc8a9b0-d3e4-4f56-a7b8-c9d0e1f2a3b4"
	b, a := before.Get("jobs").Get(id), after.Get("jobs").Get(id)
	if !jsondoc.Equal(b.Get("state"), a.Get("state")) || !jsondoc.Equal(b.Get("scheduleIdentity"), a.Get("scheduleIdentity")) {
		t.Error("sidecar state changed")
	}
	if a.Get("updatedAtMs").Num != float64(fixedNow.UnixMilli()) {
		t.Errorf("sidecar updatedAtMs %v", a.Get("updatedAtMs").Num)
	}
	// Other entries untouched.
	for _, m := range before.Get("jobs").Members {
		if m.Key != id && !jsondoc.Equal(m.Value, after.Get("jobs").Get(m.Key)) {
			t.Errorf("entry %s changed", m.Key)
		}
	}
	// jobs.json rows of the JSON era without updatedAtMs do not gain one when the sidecar has it.
	if loadJobs(t, filepath.Join(dir, "cron", "jobs.json"))[id].Has("updatedAtMs") {
		t.Error("updatedAtMs added to the row although the sidecar holds it")
	}
	if len(r.Cron.Backups) != 2 {
		t.Errorf("backups %v, want jobs.json and jobs-state.json", r.Cron.Backups)
	}
	if r.Remaining == 0 {
		t.Error("the undecidable job should remain a finding")
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
