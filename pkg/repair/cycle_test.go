package repair

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/pkg/transcript"
)

// TestParentCycleCut: the link of each cycle's entry written first is cut
// to the entry before it (null when none), as 2026.9.6 reads it; a cut that
// closes a new cycle is followed by another; forward links outside a cycle
// and ordinary branches are left alone; the original line is quarantined
// and a second run changes nothing.
func TestParentCycleCut(t *testing.T) {
	h := repHeader
	cases := []struct {
		name, in, want string
		cut            []int64
	}{
		{
			name: "the cycle's first entry is the file's first: a root",
			in:   repeatedLines(h, repMsg("m1", "m3", "user", "a"), repMsg("m2", "m1", "assistant", "b"), repMsg("m3", "m2", "user", "c")),
			want: repeatedLines(h, repMsg("m1", "", "user", "a"), repMsg("m2", "m1", "assistant", "b"), repMsg("m3", "m2", "user", "c")),
			cut:  []int64{2},
		},
		{
			name: "entries before it: the one just before",
			in: repeatedLines(h, repMsg("m0", "", "user", "s"), repMsg("ma", "m0", "assistant", "t"),
				repMsg("m1", "m3", "user", "a"), repMsg("m2", "m1", "assistant", "b"), repMsg("m3", "m2", "user", "c")),
			want: repeatedLines(h, repMsg("m0", "", "user", "s"), repMsg("ma", "m0", "assistant", "t"),
				repMsg("m1", "ma", "user", "a"), repMsg("m2", "m1", "assistant", "b"), repMsg("m3", "m2", "user", "c")),
			cut: []int64{4},
		},
		{
			name: "its own parent",
			in:   repeatedLines(h, repMsg("m0", "", "user", "s"), repMsg("m1", "m1", "assistant", "a"), repMsg("m2", "m1", "user", "b")),
			want: repeatedLines(h, repMsg("m0", "", "user", "s"), repMsg("m1", "m0", "assistant", "a"), repMsg("m2", "m1", "user", "b")),
			cut:  []int64{3},
		},
		{
			name: "a cut closing a new cycle through the entry before: cut too",
			// d's parent g and e's parent g are both written after them; g's parent is e
			in: repeatedLines(h, repMsg("c", "", "user", "s"), repMsg("d", "g", "assistant", "x"),
				repMsg("e", "g", "user", "y"), repMsg("g", "e", "assistant", "z")),
			want: repeatedLines(h, repMsg("c", "", "user", "s"), repMsg("d", "c", "assistant", "x"),
				repMsg("e", "d", "user", "y"), repMsg("g", "e", "assistant", "z")),
			cut: []int64{3, 4},
		},
		{
			name: "two cycles",
			in: repeatedLines(h, repMsg("a1", "a2", "user", "x"), repMsg("a2", "a1", "assistant", "y"),
				repMsg("b1", "b2", "user", "x"), repMsg("b2", "b1", "assistant", "y")),
			want: repeatedLines(h, repMsg("a1", "", "user", "x"), repMsg("a2", "a1", "assistant", "y"),
				repMsg("b1", "a2", "user", "x"), repMsg("b2", "b1", "assistant", "y")),
			cut: []int64{2, 4},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := applyAndCheck(t, c.in, c.want, c.cut)
			assert.Equal(t, c.cut, p.LineNums[RuleParentCycle])
			assert.True(t, p.NeedsAttention())
		})
	}
	for _, in := range []string{
		// a parent written after its child, no cycle: OpenClaw's own business
		repeatedLines(h, repMsg("a", "", "user", "s"), repMsg("b", "c", "assistant", "x"), repMsg("c", "a", "user", "y")),
		// branches (a parent that is not the entry before), an orphan
		repeatedLines(h, repMsg("a", "", "user", "s"), repMsg("b", "a", "assistant", "x"), repMsg("c", "a", "assistant", "y"), repMsg("d", "zz", "user", "z")),
	} {
		file := filepath.Join(t.TempDir(), "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
		p, err := PlanFile(file, Options{})
		require.NoError(t, err)
		assert.False(t, p.NeedsAttention(), "%s", in)
	}
	// the 2026.5.6 rule set has no such rule
	file := filepath.Join(t.TempDir(), "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(cases[0].in), 0o644))
	p, err := PlanFile(file, Options{Rules: RuleSetOpenClaw})
	require.NoError(t, err)
	assert.False(t, p.NeedsAttention())
}

// TestRepeatedHeaderDropped: a session header written again (verbatim, or
// with the same id) is quarantined; a header with another id is left alone;
// an entry with the header's id is renamed (2026.9.6 stores the header
// under it).
func TestRepeatedHeaderDropped(t *testing.T) {
	in := repeatedLines(repHeader, repMsg("m1", "", "user", "a"), repHeader, repMsg("m2", "m1", "assistant", "b"))
	file := filepath.Join(t.TempDir(), "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int64{3}, rep.Lines[RuleRepeatedHeader])
	got, _ := os.ReadFile(file)
	assert.Equal(t, repeatedLines(repHeader, repMsg("m1", "", "user", "a"), repMsg("m2", "m1", "assistant", "b")), string(got))
	assert.Equal(t, repHeader, string(readQuarantine(t, rep.Quarantine)[3]))

	other := `{"type":"session","version":3,"id":"s2","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/"}`
	require.NoError(t, os.WriteFile(file, []byte(repeatedLines(repHeader, repMsg("m1", "", "user", "a"), other)), 0o644))
	p, err := PlanFile(file, Options{})
	require.NoError(t, err)
	assert.False(t, p.NeedsAttention())

	require.NoError(t, os.WriteFile(file, []byte(repeatedLines(repHeader, repMsg("s1", "", "user", "a"), repMsg("m2", "s1", "assistant", "b"))), 0o644))
	_, err = ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	got, _ = os.ReadFile(file)
	assert.Equal(t, repeatedLines(repHeader, repMsg("s1-oc2", "", "user", "a"), repMsg("m2", "s1-oc2", "assistant", "b")), string(got))
}

// FuzzParentCycleCut: any parent links among a few entries (cycles, self
// parents, forward links, repeats) are planned without error; after the
// repair no cycle is left (oc's analysis finds none), every cut entry's
// new parent is written before it (or null), and a second run changes
// nothing.
func FuzzParentCycleCut(f *testing.F) {
	f.Add([]byte{2, 0, 1}, uint8(3))
	f.Add([]byte{0, 2, 3, 1}, uint8(4))
	f.Add([]byte{1, 1}, uint8(2))
	f.Fuzz(func(t *testing.T, parents []byte, n uint8) {
		n = n%8 + 1
		ids := []string{"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"}
		lines := []string{repHeader}
		for i := range int(n) {
			p := ""
			if i < len(parents) && parents[i]%9 != 8 {
				p = ids[parents[i]%9%8]
			}
			lines = append(lines, repMsg(ids[i], p, "user", ids[i]))
		}
		file := filepath.Join(t.TempDir(), "s1.jsonl")
		if err := os.WriteFile(file, []byte(repeatedLines(lines...)), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := transcript.AnalyzeFile(transcript.File{Path: file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range sum.Findings {
			if fd.Rule == "parent-cycle" {
				t.Fatalf("a cycle is left at line %d of %q", fd.Line, lines)
			}
		}
		out, _ := os.ReadFile(file)
		got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		for _, l := range rep.Lines[RuleParentCycle] {
			e := ParseEntry([]byte(got[l-1]))
			p, ok := e.ParentString()
			if !ok {
				continue // null: a root
			}
			before := false
			for _, prev := range got[1 : l-1] {
				if id, _ := ParseEntry([]byte(prev)).IDString(); id == p {
					before = true
				}
			}
			if !before {
				t.Fatalf("line %d cut to %q, not an entry before it", l, p)
			}
		}
		rep2, err := ApplyFile(t.Context(), file, ApplyOptions{})
		if err != nil || rep2.Changed {
			t.Fatalf("second run: %v, changed %v", err, rep2 != nil && rep2.Changed)
		}
	})
}

// BenchmarkPlanFileCycle: BenchmarkPlanFile's 16 MiB transcript with a
// parentId cycle of three entries appended: the passes a cycle costs (the
// links, then the cuts) next to BenchmarkPlanFile's one.
func BenchmarkPlanFileCycle(b *testing.B) {
	path := benchTranscript(b, repeatedLines(repMsg("cy1", "cy3", "user", "a"), repMsg("cy2", "cy1", "assistant", "b"), repMsg("cy3", "cy2", "user", "c")))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := PlanFile(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if p.Counts[RuleParentCycle] != 1 {
			b.Fatalf("cuts %v", p.LineNums[RuleParentCycle])
		}
	}
}

// TestPlanReaderReplansLinks: a stream planned by PlanReader meets forward
// parent links and cycles as a file does (it once failed with "plan again
// with every link kept", found by FuzzPlan); a stream that cannot seek
// plans forward links in one read and names why a cycle needs another.
func TestPlanReaderReplansLinks(t *testing.T) {
	h := repHeader
	forward := repeatedLines(h, repMsg("a", "", "user", "s"), repMsg("b", "c", "assistant", "x"), repMsg("c", "a", "user", "y"))
	cycle := repeatedLines(h, repMsg("m1", "m3", "user", "a"), repMsg("m2", "m1", "assistant", "b"), repMsg("m3", "m2", "user", "c"))
	for _, in := range []string{forward, cycle} {
		file := filepath.Join(t.TempDir(), "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
		want, err := PlanFile(file, Options{})
		require.NoError(t, err)
		got, err := PlanReader(strings.NewReader(in), "s1.jsonl", Options{})
		require.NoError(t, err)
		assert.Equal(t, want.Changes, got.Changes)
		assert.Equal(t, want.LineNums, got.LineNums)
	}
	_, err := PlanReader(onlyReader{strings.NewReader(forward)}, "s1.jsonl", Options{})
	require.NoError(t, err)
	_, err = PlanReader(onlyReader{strings.NewReader(cycle)}, "s1.jsonl", Options{})
	require.ErrorContains(t, err, "cycle")
}

// onlyReader hides every method but Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }
