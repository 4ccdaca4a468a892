package transcript

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func scan(t *testing.T, lines ...string) *Index {
	t.Helper()
	ix, err := Scan(strings.NewReader(strings.Join(lines, "\n")+"\n"), ScanOptions{})
	require.NoError(t, err)
	return ix
}

const hdr = `{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`

func e(id, parent string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"x"}}`
}

func lines(ix *Index, path []int) []int64 {
	var out []int64
	for _, i := range path {
		out = append(out, ix.Nodes[i].Line)
	}
	return out
}

func TestTreePathFollowsLastEntry(t *testing.T) {
	ix := scan(t, hdr, e("a", ""), e("b", "a"), e("c", "a"), e("d", "b"))
	tr := NewTree(ix)
	assert.Equal(t, []int64{2, 3, 5}, lines(ix, tr.Path()), "leaf = last line; its chain to the root")
	children, roots := tr.Children()
	assert.Equal(t, []int{0}, roots)
	assert.Len(t, children[0], 2, "a has two children: a fork")
}

func TestTreeCycleEndsTheWalk(t *testing.T) {
	ix := scan(t, hdr, e("a", "c"), e("b", "a"), e("c", "b"))
	tr := NewTree(ix)
	assert.Len(t, tr.Path(), 3, "each entry once, no endless loop")
}

func TestTreeMissingParentIsARoot(t *testing.T) {
	ix := scan(t, hdr, e("a", ""), e("b", "gone"))
	tr := NewTree(ix)
	assert.True(t, tr.MissingParent(1))
	assert.Equal(t, []int64{3}, lines(ix, tr.Path()))
}

func TestTreeVersion1IsLinear(t *testing.T) {
	ix := scan(t, `{"type":"session","id":"s","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`, e("a", ""), e("b", "nowhere"), e("c", "zzz"))
	tr := NewTree(ix)
	assert.True(t, tr.Migrated)
	assert.Equal(t, []int64{2, 3, 4}, lines(ix, tr.Path()), "v1 files are re-linked in file order on open")
}

func TestScanHeaderRules(t *testing.T) {
	ix := scan(t, "garbage", hdr, e("a", ""))
	require.NotNil(t, ix.Header, "the first line that parses is the header")
	assert.Equal(t, int64(2), ix.Header.Line)
	assert.Equal(t, []int64{1}, ix.Malformed)

	ix = scan(t, e("a", ""), hdr)
	assert.Nil(t, ix.Header)
	assert.True(t, ix.HeaderInvalid, "an entry before the header makes the file unreadable for OpenClaw")
	assert.Equal(t, 0, PlanContext(ix, NewTree(ix)).MessageCount())

	ix = scan(t, `{"type":"session","id":42}`, e("a", ""))
	assert.True(t, ix.HeaderInvalid, "the header id must be a string")

	// Keys match exactly, as JavaScript property access does ("Type" is not "type").
	ix = scan(t, `{"Type":"session","ID":"s"}`, e("a", ""))
	assert.True(t, ix.HeaderInvalid)
	s, err := Analyze(strings.NewReader(`{"type":"session","id":"s"}` + "\n" + `{"type":"message","id":"a","message":{"Role":"user"}}` + "\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"(none)": 1}, s.ByRole)

	_, err = Scan(bytes.NewReader([]byte("\n  \n")), ScanOptions{})
	assert.ErrorIs(t, err, ErrNotTranscript)
}

// Shape counts what Children lists.
func TestShapeEqualsChildren(t *testing.T) {
	lines := []string{`{"type":"session","version":3,"id":"s"}`}
	for i, p := range []string{"", "a", "b", "b", "a", "x", "", "f"} {
		id := string(rune('a' + i))
		parent := "null"
		if p != "" {
			parent = `"` + p + `"`
		}
		lines = append(lines, `{"type":"message","id":"`+id+`","parentId":`+parent+`,"message":{"role":"user","content":"x"}}`)
	}
	ix, err := Scan(strings.NewReader(strings.Join(lines, "\n")+"\n"), ScanOptions{})
	require.NoError(t, err)
	tr := NewTree(ix)
	children, roots := tr.Children()
	leaves, forks := 0, 0
	for _, c := range children {
		if len(c) == 0 {
			leaves++
		} else if len(c) > 1 {
			forks++
		}
	}
	r, l, f := tr.Shape()
	require.Equal(t, []int{len(roots), leaves, forks}, []int{r, l, f})
	require.Equal(t, []int{3, 5, 2}, []int{r, l, f}) // roots a, f (its parent x is missing) and g; forks a and b
}

// The id index finds the last entry with each id, with the seeded hash and
// with one so weak that every id collides (it then keys by the ids).
func TestIDIndex(t *testing.T) {
	ids := []Key{keyOf([]byte(`"a"`)), keyOf([]byte(`"b"`)), keyOf([]byte(`"a"`)), keyOf([]byte(`1`)), keyOf([]byte(`"1"`)), keyOf([]byte(`null`))}
	idOf := func(i int) Key { return ids[i] }
	for _, c := range []struct {
		weak  bool
		parts int
	}{{false, 1}, {true, 1}, {false, 2}, {true, 2}} {
		weak := c.weak
		x := newIDIndex(len(ids), c.parts)
		if weak {
			x.hashed = func(k Key) uint64 { return uint64(len(k.text)) }
		}
		var repeats []int
		for i, k := range ids {
			prev, had := x.put(k, i, idOf)
			if had {
				require.Equal(t, k, ids[prev], "weak=%v: put reports an entry with another id", weak)
				repeats = append(repeats, i, prev)
			}
		}
		require.Equal(t, []int{2, 0}, repeats, "weak=%v: only the second \"a\" repeats an id (the first)", weak)
		for _, c := range []struct {
			k    Key
			want int
			ok   bool
		}{{ids[0], 2, true}, {ids[1], 1, true}, {ids[3], 3, true}, {ids[4], 4, true}, {ids[5], 5, true}, {keyOf([]byte(`"c"`)), 0, false}} {
			j, ok := x.get(c.k, idOf)
			require.Equal(t, c.ok, ok, "weak=%v %v", weak, c.k)
			if ok {
				require.Equal(t, c.want, j, "weak=%v %v", weak, c.k)
			}
		}
		exact := false
		for _, p := range x.parts {
			exact = exact || p.exact != nil
		}
		require.Equal(t, weak, exact)
	}
}

// The tree indexed on two goroutines (by the ids' hashes) is the tree
// indexed on one: every parent, every repeated id's first entry, the path.
func TestNewTreeParts(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}` + "\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3 * parallelTreeNodes {
		id := fmt.Sprintf(`"e%d"`, i)
		if rng.IntN(50) == 0 {
			id = fmt.Sprintf(`"e%d"`, rng.IntN(i+1)) // a repeated id
		}
		parent := fmt.Sprintf(`"e%d"`, i-1)
		switch rng.IntN(20) {
		case 0:
			parent = fmt.Sprintf(`"e%d"`, rng.IntN(i+1)) // a branch
		case 1:
			parent = `"nowhere"`
		case 2:
			parent = "null"
		}
		fmt.Fprintf(&b, `{"type":"message","id":%s,"parentId":%s,"timestamp":"2026-05-01T00:00:00.000Z","message":{"role":"user","content":"x"}}`+"\n", id, parent)
	}
	ix, err := Scan(strings.NewReader(b.String()), ScanOptions{})
	require.NoError(t, err)
	one, two := newTree(&Tree{ix: ix}, 1), newTree(&Tree{ix: ix}, 2)
	require.NotEmpty(t, one.firstWithID)
	require.Equal(t, one.parents, two.parents)
	require.Equal(t, one.firstWithID, two.firstWithID)
	require.Equal(t, one.Leaf(), two.Leaf())
	require.Equal(t, one.Path(), two.Path())
	for _, part := range two.ids.parts {
		require.Greater(t, part.byHash.Len(), len(ix.Nodes)/3, "the ids split about evenly")
	}
}

// A repeated id is reported on each later entry that has it, naming the
// first entry's line (not the previous one's), and only for string ids.
func TestDuplicateIDFindings(t *testing.T) {
	m := func(id, parent string) string {
		return `{"type":"message","id":` + id + `,"parentId":` + parent + `,"timestamp":"2026-05-01T00:00:00.000Z","message":{"role":"user","content":"x"}}`
	}
	lines := []string{
		`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`,
		m(`"a"`, `null`), m(`"b"`, `"a"`), m(`"a"`, `"b"`), m(`7`, `"a"`), m(`7`, `"a"`), m(`"a"`, `"a"`),
	}
	s, err := Analyze(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	require.NoError(t, err)
	var got []string
	for _, f := range s.Findings {
		if f.Rule == "duplicate-id" || f.Rule == "missing-id" {
			got = append(got, fmt.Sprintf("%s %d %s", f.Rule, f.Line, f.Message))
		}
	}
	require.Equal(t, []string{
		`duplicate-id 4 id "a" is used again (first on line 2); links go to the later entry`,
		`missing-id 5 entry has no string id; nothing can link to it`,
		`missing-id 6 entry has no string id; nothing can link to it`,
		`duplicate-id 7 id "a" is used again (first on line 2); links go to the later entry`,
	}, got)
}

// Assistant turns of one provider and model share one NodeExtra; a turn of
// another model, or with padding around the same one, gets what it names.
func TestScanSharesNodeExtras(t *testing.T) {
	lines := []string{
		`{"type":"session","id":"s","version":3}`,
		`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","provider":"p1","model":"m1","content":[]}}`,
		`{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","provider":"p1","model":"m2","content":[]}}`,
		`{"type":"message","id":"c","parentId":"b","message":{"role":"assistant","provider":"p1","model":"m1","content":[]}}`,
		`{"type":"message","id":"d","parentId":"c","message":{"role":"assistant","provider":"p1","model":"m1","content":[]}}`,
		`{"type":"model_change","id":"e","parentId":"d","provider":"p1","modelId":"m2"}`,
	}
	ix, err := Scan(strings.NewReader(strings.Join(lines, "\n")+"\n"), ScanOptions{})
	require.NoError(t, err)
	require.Len(t, ix.Nodes, 5)
	a, b, c, d, e := ix.Nodes[0].Extra, ix.Nodes[1].Extra, ix.Nodes[2].Extra, ix.Nodes[3].Extra, ix.Nodes[4].Extra
	require.NotNil(t, a)
	assert.Same(t, a, c)
	assert.Same(t, a, d)
	assert.NotSame(t, a, b)
	assert.Same(t, b, e, "a model change names the same provider and model")
	assert.Equal(t, `"m1"`, string(a.ModelRaw))
	assert.Equal(t, `"m2"`, string(b.ModelRaw))
	assert.Equal(t, `"p1"`, string(b.ProviderRaw))
}

// lastKey gives what keyOf gives, and a parentId that is the last id's
// literal shares that id's string.
func TestLastKey(t *testing.T) {
	var lk lastKey
	raws := []string{`"a"`, ` "a" `, `"b"`, `null`, `"\u0061"`, `7`, `"a"`, ``}
	for _, prev := range raws {
		for _, raw := range raws {
			id := lk.id([]byte(prev))
			require.Equal(t, keyOf([]byte(prev)), id)
			got := lk.parent([]byte(raw))
			require.Equal(t, keyOf([]byte(raw)), got, "parent %q after id %q", raw, prev)
			if strings.TrimSpace(raw) == strings.TrimSpace(prev) && id.text != "" {
				assert.Same(t, unsafe.StringData(id.text), unsafe.StringData(got.text), "parent %q after id %q", raw, prev)
			}
		}
	}
}

// A node's parent is the last entry with the id its parentId names, on
// random trees with and without ids given twice (the shortcut to the entry
// before is only taken when no id repeats).
func TestTreeParentsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200; round++ {
		n := 2 + r.IntN(40)
		ids := make([]string, n)
		lines := []string{hdr}
		for i := range ids {
			ids[i] = fmt.Sprintf("n%d", i)
			if round%2 == 1 && i > 0 && r.IntN(5) == 0 {
				ids[i] = ids[r.IntN(i)] // an id given again
			}
			parent := ""
			switch k := r.IntN(10); {
			case i == 0 || k == 0:
			case k < 7:
				parent = ids[i-1]
			case k < 9:
				parent = ids[r.IntN(i)]
			default:
				parent = "missing"
			}
			lines = append(lines, e(ids[i], parent))
		}
		ix := scan(t, lines...)
		tr := NewTree(ix)
		for i, nd := range ix.Nodes {
			want := -1
			if nd.ParentID().Truthy() {
				want = -2
				for j := range ix.Nodes {
					if ix.Nodes[j].ID() == nd.ParentID() {
						want = j // the last one wins
					}
				}
			}
			require.Equal(t, want, int(tr.parents[i]), "round %d node %d", round, i)
		}
	}
}

// A node keeps its id, parentId and role as it was given them, any role
// (OpenClaw's are codes, another is kept in the node's Extra), in 80 bytes.
func TestNodeKeysAndRoles(t *testing.T) {
	require.Equal(t, uintptr(80), unsafe.Sizeof(Node{}))
	line := func(id, parent, role string) string {
		return `{"type":"message","id":` + id + `,"parentId":` + parent + `,"timestamp":"2026-05-01T00:00:00.000Z","message":{"role":` + role + `,"content":"x","provider":"p","model":"m"}}`
	}
	lines := []string{`{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`}
	roles := []string{`"user"`, `"assistant"`, `"toolResult"`, `"custom"`, `"bashExecution"`, `"branchSummary"`, `"compactionSummary"`, `"weird"`, `"weird"`, `""`, `null`, `7`, `"Assistant"`, `"a\u0000b"`}
	ids := []string{`"a"`, `"b"`, `null`, `7`, `"7"`, `true`, `{"x":1}`, `""`, `"c"`, `"d"`, `"e"`, `"f"`, `"g"`, `"h"`}
	for i, role := range roles {
		parent := `null`
		if i > 0 {
			parent = ids[i-1]
		}
		lines = append(lines, line(ids[i], parent, role))
	}
	ix, err := Scan(strings.NewReader(strings.Join(lines, "\n")+"\n"), ScanOptions{})
	require.NoError(t, err)
	require.Len(t, ix.Nodes, len(roles))
	for i, n := range ix.Nodes {
		require.Equal(t, keyOf([]byte(ids[i])), n.ID(), "id of line %d", i+2)
		wantParent := Key{kind: keyNull}
		if i > 0 {
			wantParent = keyOf([]byte(ids[i-1]))
		}
		require.Equal(t, wantParent, n.ParentID(), "parentId of line %d", i+2)
		wantRole, _ := str([]byte(roles[i]))
		require.Equal(t, wantRole, n.Role(), "role of line %d", i+2)
	}
	// the assistant's settings and the other roles share their Extras
	require.Equal(t, []byte(`"p"`), ix.Nodes[1].Extra.ProviderRaw)
	require.Same(t, ix.Nodes[7].Extra, ix.Nodes[8].Extra)
	require.Nil(t, ix.Nodes[0].Extra)
}
