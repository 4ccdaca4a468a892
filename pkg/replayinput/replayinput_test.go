package replayinput_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replayinput"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/context96"
)

func noSkips(t *testing.T) func(string) {
	return func(s string) { t.Errorf("skipped index %s", s) }
}

// A session key of a SQLite install resolves to the stored session, read by
// each release its own way: 2026.9.6 from its rows (with the session's
// version), 2026.5.6 from a temporary export that is gone afterwards; both
// name the session, never the temporary file.
func TestResolveAndLoadSQLiteSession(t *testing.T) {
	state := oracletest.ColdState96(t, oracletest.ArchiveFixtureDir(t), "state")
	ses, err := replayinput.Resolve(t.Context(), state, "agent:main:main", noSkips(t))
	if err != nil {
		t.Fatal(err)
	}
	if ses.Stored == nil || ses.Path != "" || ses.Source.Era != store.EraSQLite || ses.Source.DefaultRelease() != policy.Release96 {
		t.Fatalf("resolved as %+v", ses)
	}
	limits := context96.LimitsFor(128000)
	in96, err := replayinput.Load(t.Context(), ses, replayinput.LoadOptions{Releases: []policy.Release{policy.Release96}, Limits: limits, Decode: true})
	if err != nil {
		t.Fatal(err)
	}
	in56, err := replayinput.Load(t.Context(), ses, replayinput.LoadOptions{Releases: []policy.Release{policy.Release56}, Limits: limits, Decode: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []*replayinput.Input{in96, in56} {
		if !strings.HasPrefix(in.Path, "agent:main:main in ") || len(in.Messages) == 0 {
			t.Errorf("input named %q with %d messages", in.Path, len(in.Messages))
		}
		if in.Context.Messages != nil {
			t.Errorf("%s: the context's text is kept though KeepText is off", in.Path)
		}
	}
	if in96.SessionVersion == 0 || in56.SessionVersion != 0 {
		t.Errorf("session versions: 2026.9.6 %d, 2026.5.6 %d; only 9.6 reads it from the rows", in96.SessionVersion, in56.SessionVersion)
	}
	if in96.ForRelease(policy.Release96) != in96 {
		t.Errorf("ForRelease without a newer input")
	}
	in56.Newer = in96
	if in56.ForRelease(policy.Release96) != in96 || in56.ForRelease(policy.Release56) != in56 {
		t.Errorf("ForRelease does not pick each release's input")
	}
}

// A transcript path stays a file of the JSONL era; an ambiguous prefix is
// the store's AmbiguousError; an unknown session names itself.
func TestResolveFilesAndErrors(t *testing.T) {
	example := filepath.Join("..", "..", "testdata", "example-state")
	file := filepath.Join(example, "agents", "main", "sessions", "0197d2a4-6b1e-7c3d-9e4f-5a6b7c8d9e01.jsonl")
	ses, err := replayinput.Resolve(t.Context(), example, file, noSkips(t))
	if err != nil {
		t.Fatal(err)
	}
	if ses.Path != file || ses.Stored != nil || ses.Source.DefaultRelease() != policy.Release56 {
		t.Errorf("a path resolved as %+v", ses)
	}
	in, err := replayinput.Load(t.Context(), ses, replayinput.LoadOptions{Decode: true, KeepText: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Messages) != 8 || len(in.Context.Messages) != 8 {
		t.Errorf("%d messages decoded, %d kept; the example's active branch has 8", len(in.Messages), len(in.Context.Messages))
	}

	_, err = replayinput.Resolve(t.Context(), example, "0197d", noSkips(t))
	var amb *store.AmbiguousError
	if !errors.As(err, &amb) {
		t.Errorf("prefix shared by several sessions: %v, want an AmbiguousError", err)
	}
	if _, err = replayinput.Resolve(t.Context(), example, "agent:main:nobody", noSkips(t)); err == nil || !strings.Contains(err.Error(), "agent:main:nobody") {
		t.Errorf("unknown key: %v", err)
	}
}

func TestContextOf96(t *testing.T) {
	for _, c := range []struct {
		releases []policy.Release
		want     bool
	}{{nil, true}, {[]policy.Release{policy.Release96}, true}, {[]policy.Release{policy.Release56}, false},
		{[]policy.Release{policy.Release56, policy.Release96}, false}} {
		if got := replayinput.ContextOf96(c.releases); got != c.want {
			t.Errorf("ContextOf96(%v) = %v", c.releases, got)
		}
	}
}
