package repair

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// What --check flags, repair fixes or names as unrepairable: every plan that
// needs attention and would not change the file has a reason.
func TestUnrepairableNamesWhyRepairCannotFixIt(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := `{"type":"session","version":3,"id":"0197e000-0000-7000-8000-000000000001","timestamp":"2026-05-17T06:45:00.000Z","cwd":"/"}` + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(header + "{broken\n"))
	_ = zw.Close()
	for _, c := range []struct {
		name, path string
		opts       Options
		want       string
	}{
		{"random bytes", write("r.jsonl", []byte("\x00\x01garbage\n\xff\xfe more\n")), Options{}, "no line is a JSON entry: not an OpenClaw transcript"},
		{"gzip", write("g.jsonl.gz", gz.Bytes()), Options{}, "gzip-compressed: oc repairs only plain files (decompress it, repair, compress again)"},
		{"fixable", write("f.jsonl", []byte(header+"{broken\n")), Options{}, ""},
		{"healthy", write("h.jsonl", []byte(header)), Options{}, ""},
		{"empty", write("e.jsonl", nil), Options{}, ""},
		{"bad header, 2026.5.6 rules", write("b.jsonl", []byte(`{"type":"message","id":"m1","parentId":null}`+"\n{broken\n")), Options{Rules: RuleSetOpenClaw}, SkipInvalidHeader},
	} {
		p, err := PlanFile(c.path, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := p.Unrepairable(); got != c.want {
			t.Errorf("%s: Unrepairable() = %q, want %q", c.name, got, c.want)
		}
		if p.NeedsAttention() && !p.Changed() && p.Unrepairable() == "" {
			t.Errorf("%s: flagged, not changed, and no reason given", c.name)
		}
	}
}
