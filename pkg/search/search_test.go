package search_test

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/catalog"
	"github.com/openclaw-tools/oc/pkg/search"
	"github.com/openclaw-tools/oc/pkg/store"
)

// planted is testdata/grep-planted: a JSONL install whose sessions hold the
// word ZEBRAFISH in a text, between escaped quotes, inside a tool call's
// escaped argument, in thinking, spelled with \u escapes, in a tool
// result; decoys hold it as a key name, split, or in lower case; an
// archive (.reset) holds it too.
const planted = "../../testdata/grep-planted"

const word = "ZEBRAFISH"

func grep(t *testing.T, root string, q search.Query, f catalog.Filter) []string {
	t.Helper()
	return grepWith(t, root, q, f, search.Options{})
}

func grepWith(t *testing.T, root string, q search.Query, f catalog.Filter, o search.Options) []string {
	t.Helper()
	st, sessions, err := catalog.Select(context.Background(), root, "", f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = search.Run(context.Background(), st, sessions, q, o, func(r search.Result) error {
		if r.Err != nil {
			t.Errorf("%v", r.Err)
		}
		if len(r.Matches) > 0 {
			name := r.Session.Label()
			if r.Session.Key == "" {
				name = filepath.Base(r.Session.Path)
			}
			got = append(got, name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

var live = []string{"agent:main:s01", "agent:main:s03", "agent:main:s04", "agent:main:s06", "agent:main:s07", "agent:ops:s09"}

func TestPlantedWordJSONLInstall(t *testing.T) {
	root := filepath.Join(planted, "state")
	same(t, "fixed string", grep(t, root, search.Query{Pattern: word}, catalog.Filter{}), live)
	same(t, "-l", grepWith(t, root, search.Query{Pattern: word}, catalog.Filter{}, search.Options{FirstOnly: true, Jobs: 1}), live)
	same(t, "-i", grep(t, root, search.Query{Pattern: "zebrafish", IgnoreCase: true}, catalog.Filter{}), append([]string{"agent:main:s08"}, live...))
	same(t, "-E", grep(t, root, search.Query{Pattern: `ZEBRA(FISH|FOX)\b`, Regexp: true}, catalog.Filter{}), live)
	same(t, "--archived", grep(t, root, search.Query{Pattern: word}, catalog.Filter{Archived: true}),
		append([]string{"0197d2a4-0000-7000-8000-000000000010.jsonl.reset.2026-05-02T00-00-00.000Z"}, live...))
	same(t, "--agent ops", grep(t, root, search.Query{Pattern: word}, catalog.Filter{Agent: "ops"}), []string{"agent:ops:s09"})
	same(t, "--role toolResult", grep(t, root, search.Query{Pattern: word, Role: "toolResult"}, catalog.Filter{}), []string{"agent:ops:s09"})
	same(t, "--tool exec", grep(t, root, search.Query{Pattern: word, Tool: "exec"}, catalog.Filter{}), []string{"agent:main:s04"})
	same(t, "--model claude", grep(t, root, search.Query{Pattern: "swims", Model: "sonnet"}, catalog.Filter{}), []string{"agent:ops:s09"})
	same(t, "--model other", grep(t, root, search.Query{Pattern: word, Model: "gpt-5"}, catalog.Filter{}), nil)
	same(t, "a key name is not text", grep(t, root, search.Query{Pattern: `"cmd"`}, catalog.Filter{}), nil)
}

// TestPlantedWordImported96: the same install after OpenClaw 2026.9.6's
// own import (testdata/grep-planted/imported, see its README): the same
// sessions by key, from the database; with --archived, the originals the
// import archived too.
func TestPlantedWordImported96(t *testing.T) {
	root := importedState(t)
	same(t, "database", grep(t, root, search.Query{Pattern: word}, catalog.Filter{}), live)
	same(t, "database, -l", grepWith(t, root, search.Query{Pattern: word}, catalog.Filter{}, search.Options{FirstOnly: true}), live)
	st, sessions, err := catalog.Select(context.Background(), root, "", catalog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	_ = st
	for _, s := range sessions {
		if s.Era != store.EraSQLite {
			t.Errorf("%s: %s, want every session read from the database", s.Label(), s.Era)
		}
	}
	got := grep(t, root, search.Query{Pattern: word}, catalog.Filter{Archived: true})
	var originals []string
	for _, g := range got {
		if strings.Contains(g, ".imported-") || strings.Contains(g, ".reset.") {
			originals = append(originals, g)
		}
	}
	if len(originals) < len(live) {
		t.Errorf("--archived found %d archived originals (%q), want at least the %d planted sessions'", len(originals), originals, len(live))
	}
	for _, o := range originals {
		if strings.Contains(o, "000000000002") || strings.Contains(o, "000000000005") || strings.Contains(o, "000000000008") || strings.Contains(o, "000000000011") {
			t.Errorf("a decoy's original matched: %s", o)
		}
	}
}

// importedState unpacks testdata/grep-planted/imported (databases gzipped,
// the import archive as 9.6 left it) into a fresh state dir.
func importedState(t *testing.T) string {
	t.Helper()
	return unpack(t, filepath.Join(planted, "imported"))
}

// unpack copies a fixture state dir, gunzipping its .gz files.
func unpack(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "README.md" {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		var r io.Reader = in
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(in)
			if err != nil {
				return err
			}
			r, rel = zr, strings.TrimSuffix(rel, ".gz")
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			return err
		}
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, r); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestArchivedGenerations96: with --archived, the deleted and reset
// generations 2026.9.6 keeps in session_transcript_archives are searched
// (testdata/sqlite-archives: written by 9.6's own code); without it, not.
func TestArchivedGenerations96(t *testing.T) {
	root := unpack(t, "../../testdata/sqlite-archives/state")
	// "ping" is said only in the archived generation of 0197d5ff (ops)
	got := grep(t, root, search.Query{Pattern: "ping", Role: "user"}, catalog.Filter{Archived: true})
	var archived []string
	for _, g := range got {
		if strings.Contains(g, "@") {
			archived = append(archived, g)
		}
	}
	same(t, "archived generations", archived, []string{"0197d5ff-0000-7111-8222-333344445555@0db23a8a9f4243509655934c7194b4f9"})
	for _, g := range grep(t, root, search.Query{Pattern: "ping", Role: "user"}, catalog.Filter{}) {
		if strings.Contains(g, "@") {
			t.Errorf("without --archived: %s searched", g)
		}
	}
}
