package oracletest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixtures96 names the state dirs of ../shared/oracle-2026.9.6/fixtures (a new slice each call).
func Fixtures96() []string { return []string{"corpus", "damaged", "example-state"} }

// Fixture96State gunzips the databases 2026.9.6 wrote for one fixture into a
// fresh state dir (agents/<id>/agent/openclaw-agent.sqlite,
// state/openclaw.sqlite) and returns it, or skips.
func Fixture96State(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join(SharedDir(t), "oracle-2026.9.6", "fixtures", name, "db")
	if _, err := os.Stat(src); err != nil {
		Unavailable(t, fmt.Sprintf("no 2026.9.6 fixtures: %v", err))
	}
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".gz") {
			return err
		}
		rel, _ := filepath.Rel(src, strings.TrimSuffix(p, ".gz"))
		return gunzipTo(p, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatalf("unpack fixture %s: %v", name, err)
	}
	return dst
}

// Corpus96State is ../shared/corpus/oracle-2026.9.6's agent database (the
// real corpus imported by 2026.9.6) unpacked into a fresh state dir, and the
// key -> source file map of its sessions.json.
func Corpus96State(t testing.TB) (string, map[string]string) {
	t.Helper()
	dir := filepath.Join(SharedDir(t), "corpus", "oracle-2026.9.6")
	if _, err := os.Stat(dir); err != nil {
		Unavailable(t, fmt.Sprintf("no 2026.9.6 corpus answers: %v", err))
	}
	dst := t.TempDir()
	if err := gunzipTo(filepath.Join(dir, "openclaw-agent.sqlite.gz"), filepath.Join(dst, "agents", "main", "agent", "openclaw-agent.sqlite")); err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	return dst, keys
}

func gunzipTo(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ContextAnswer96 is the 2026.9.6 oracle's `context` answer for one session.
type ContextAnswer96 struct {
	Agent    string
	Key      string
	Messages []json.RawMessage
}

// FixtureContexts96 reads the `context` answers of a fixture's golden.jsonl,
// keyed "<agent>/<session key>".
func FixtureContexts96(t testing.TB, name string) map[string]ContextAnswer96 {
	t.Helper()
	path := filepath.Join(SharedDir(t), "oracle-2026.9.6", "fixtures", name, "golden.jsonl")
	out := map[string]ContextAnswer96{}
	readLines(t, path, func(line []byte) {
		var g struct {
			ID   string `json:"id"`
			Mode string `json:"mode"`
			OK   bool   `json:"ok"`
			Out  struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"out"`
		}
		if json.Unmarshal(line, &g) != nil || g.Mode != "context" || !g.OK {
			return
		}
		// id: "<fixture>/<agent>/<key>|context"
		id := strings.TrimSuffix(g.ID, "|context")
		parts := strings.SplitN(id, "/", 3)
		if len(parts) != 3 {
			return
		}
		out[parts[1]+"/"+parts[2]] = ContextAnswer96{Agent: parts[1], Key: parts[2], Messages: g.Out.Messages}
	})
	return out
}

// CorpusContexts96 reads the `context` answers of
// ../shared/corpus/oracle-2026.9.6/expected.jsonl, keyed by session key.
func CorpusContexts96(t testing.TB) map[string]ContextAnswer96 {
	t.Helper()
	path := filepath.Join(SharedDir(t), "corpus", "oracle-2026.9.6", "expected.jsonl")
	out := map[string]ContextAnswer96{}
	readLines(t, path, func(line []byte) {
		var g struct {
			ID  []string `json:"id"`
			OK  bool     `json:"ok"`
			Out struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"out"`
		}
		if json.Unmarshal(line, &g) != nil || len(g.ID) < 2 || g.ID[1] != "context" || !g.OK {
			return
		}
		out[g.ID[0]] = ContextAnswer96{Agent: "main", Key: g.ID[0], Messages: g.Out.Messages}
	})
	return out
}

func readLines(t testing.TB, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		Unavailable(t, fmt.Sprintf("stored oracle answers: %v", err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
