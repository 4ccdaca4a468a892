package upgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// Damaged copies of the corpus transcripts, one state dir per seed. The
// damage kinds are those of pkg/repair/damage_test.go (cut, glued, garbage,
// splice, damaged header, CRLF, blank lines) plus what 9.6's import treats
// specially (invalid UTF-8, no header, duplicate and non-object lines, header
// id mismatch, BOM); the seed picks the damaged line. Each copy gets a new
// session id (file name, header id, sessions.json) so that copies of one
// transcript never share an id; every fifth is left out of sessions.json.

type damageKind struct {
	name string
	fn   func(r *rand.Rand, ls [][]byte) [][]byte // nil: too small
	// destroys is true when the damage leaves one entry unrecoverable
	destroys bool
}

func pick(r *rand.Rand, ls [][]byte) int { return 1 + r.Intn(len(ls)-1) } // never the header

var damageKinds = []damageKind{
	{"cut", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		ls[m] = ls[m][:len(ls[m])*(1+r.Intn(3))/4]
		return ls
	}, true},
	{"cut-last", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := len(ls) - 1
		ls[m] = ls[m][:len(ls[m])/2]
		return append(ls, nil) // marker: no final newline
	}, true},
	{"glued", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		if m+1 >= len(ls) {
			m--
		}
		if m < 1 {
			return nil
		}
		g := append(append([]byte(nil), ls[m]...), ls[m+1]...)
		return append(append(ls[:m:m], g), ls[m+2:]...)
	}, false},
	{"garbage-nul", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		ls[m] = append(append([]byte("\x00\x00garbage#"), ls[m]...), "\x00zz"...)
		return ls
	}, false},
	{"splice", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		if m+1 >= len(ls) {
			m--
		}
		if m < 1 {
			return nil
		}
		s := append(append([]byte(nil), ls[m][:len(ls[m])/2]...), ls[m+1]...)
		return append(append(ls[:m:m], s), ls[m+2:]...)
	}, true},
	{"damaged-header", func(r *rand.Rand, ls [][]byte) [][]byte {
		ls[0] = ls[0][:len(ls[0])/2]
		return ls
	}, false},
	{"crlf-cut", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		ls[m] = ls[m][:len(ls[m])/2]
		for i := range ls {
			ls[i] = append(ls[i], '\r')
		}
		return ls
	}, true},
	{"blank-lines", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		return append(append(ls[:m:m], []byte(""), []byte("   "), []byte("\u00a0")), ls[m:]...)
	}, false},
	{"invalid-utf8", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		i := bytes.Index(ls[m], []byte(`"timestamp":"`))
		if i < 0 {
			return nil
		}
		i += len(`"timestamp":"`)
		ls[m] = append(append(append([]byte(nil), ls[m][:i]...), 0xff, 0xfe), ls[m][i:]...)
		return ls
	}, false},
	{"no-header", func(r *rand.Rand, ls [][]byte) [][]byte { return ls[1:] }, false},
	{"duplicate", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		return append(append(ls[:m+1:m+1], append([]byte(nil), ls[m]...)), ls[m+1:]...)
	}, false},
	{"non-object", func(r *rand.Rand, ls [][]byte) [][]byte {
		m := pick(r, ls)
		return append(append(ls[:m:m], []byte("[1,2]"), []byte("null"), []byte("42"), []byte(`""`)), ls[m:]...)
	}, false},
	{"header-id-mismatch", nil, false}, // handled by the builder: the header keeps a different id
	{"bom", func(r *rand.Rand, ls [][]byte) [][]byte {
		ls[0] = append([]byte("\uFEFF"), ls[0]...)
		return ls
	}, false},
}

// damagedFile is one copy in a damaged state dir.
type damagedFile struct {
	Name       string `json:"file"`
	Kind       string `json:"kind"`
	Source     string `json:"-"` // the corpus transcript (never stored)
	Registered bool   `json:"registered"`
}

// buildDamagedStateDir writes the damaged (or, with intact, the undamaged
// twin) copies of corpus into root/agents/main/sessions.
func buildDamagedStateDir(t *testing.T, corpus []string, seed int64, root string, intact bool) []damagedFile {
	t.Helper()
	dir := filepath.Join(root, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(seed))
	index := map[string]map[string]any{}
	var files []damagedFile
	n := 0
	for ci, src := range corpus {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		raw = bytes.TrimRight(raw, "\n")
		orig := bytes.Split(raw, []byte("\n"))
		if len(orig) < 4 {
			continue
		}
		for ki, k := range damageKinds {
			n++
			id := fmt.Sprintf("e%07d-%04d-4000-8000-%012d", seed, ci, ki)
			ls := make([][]byte, len(orig))
			for i, l := range orig {
				ls[i] = append([]byte(nil), l...)
			}
			if k.name != "header-id-mismatch" {
				ls[0] = setHeaderID(ls[0], id)
			}
			finalNL := true
			if !intact && k.fn != nil {
				ls = k.fn(r, ls)
				if ls == nil {
					continue
				}
				if ls[len(ls)-1] == nil {
					ls, finalNL = ls[:len(ls)-1], false
				}
			}
			out := bytes.Join(ls, []byte("\n"))
			if finalNL {
				out = append(out, '\n')
			}
			name := id + ".jsonl"
			if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
				t.Fatal(err)
			}
			registered := n%5 != 0
			if registered {
				index["agent:main:dmg-"+id] = map[string]any{"sessionId": id, "updatedAt": 1770000000000 + n, "sessionFile": name}
			}
			files = append(files, damagedFile{Name: name, Kind: k.name, Source: src, Registered: registered})
		}
	}
	b, _ := json.MarshalIndent(index, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files
}

// setHeaderID replaces the id of a compact header line.
func setHeaderID(line []byte, id string) []byte {
	var h map[string]json.RawMessage
	if json.Unmarshal(line, &h) != nil || string(h["type"]) != `"session"` {
		return line
	}
	old, ok := h["id"]
	if !ok {
		return line
	}
	return bytes.Replace(line, append([]byte(`"id":`), old...), []byte(`"id":"`+id+`"`), 1)
}

// corpusTranscripts lists the corpus's transcripts (live and archived names,
// checkpoints; no trajectories, locks, indexes or cron logs).
func corpusTranscripts(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(sharedDir(t), "corpus", "real")
	ents, err := os.ReadDir(dir)
	if err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("corpus: %v", err))
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.Contains(n, "__sessions__") || !strings.Contains(n, ".jsonl") || strings.HasSuffix(n, ".lock") || strings.Contains(n, ".trajectory") {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	sort.Strings(out)
	if len(out) < 5 {
		oracletest.Unavailable(t, fmt.Sprintf("corpus: only %d transcripts in %s", len(out), dir))
	}
	return out
}
