package transcript

import (
	"hash/maphash"
	"runtime"

	"github.com/openclaw-tools/oc/internal/hashtab"
	"github.com/openclaw-tools/oc/internal/parallel"
)

// Tree is the id/parentId structure of a transcript, resolved the way pi's
// SessionManager resolves it when OpenClaw opens the file.
type Tree struct {
	ix *Index
	// ids finds the last entry with each id (as a JavaScript Map does)
	ids idIndex
	// parents[i] is node i's parent index: -1 for a root (no truthy
	// parentId), -2 when the parentId names no entry. Resolved once, so that
	// walks do no map lookups.
	parents []int32
	// Migrated: the header's version is below 3, so OpenClaw migrates the file
	// on open (v1: every entry re-linked into one linear chain).
	Migrated bool
	linear   bool
	// firstWithID[i] is the first node with node i's id, for the nodes
	// whose id an earlier node has (nil when no id repeats).
	firstWithID map[int32]int32
	// path and cycle are PathCycle's answer, worked out once (pathDone).
	path     []int
	cycle    bool
	pathDone bool
}

// NewTree indexes the nodes. A version-1 transcript (no or old header
// version) is re-linked into a linear chain in file order, as pi's v1->v2
// migration does when OpenClaw opens it.
func NewTree(ix *Index) *Tree {
	t := &Tree{ix: ix}
	if ix.Header != nil {
		v := ix.Header.version
		if !(v >= 3) {
			t.Migrated = true
			t.linear = v < 2
		}
	}
	parts := 1
	if len(ix.Nodes) >= parallelTreeNodes && runtime.GOMAXPROCS(0) > 1 {
		parts = 2
	}
	return newTree(t, parts)
}

// newTree is NewTree's indexing of t.ix in parts parts (1 or 2).
func newTree(t *Tree, parts int) *Tree {
	ix := t.ix
	n := len(ix.Nodes)
	t.ids = newIDIndex(n, parts)
	// the ids of each part of the index (by their hashes' top bit) are put
	// on a goroutine of its own, in file order; an entry whose id an earlier
	// one has is noted on its part's list, in file order too
	repeats := make([][][2]int32, parts)
	parallel.Each(parts, parts, func(part int) {
		for i := range ix.Nodes {
			k := t.id(i)
			h := t.ids.hash(k)
			if t.ids.partOf(h) != part {
				continue
			}
			if prev, had := t.ids.parts[part].put(k, h, i, t.id); had {
				repeats[part] = append(repeats[part], [2]int32{int32(i), int32(prev)})
			}
		}
	})
	for _, rs := range repeats {
		// every entry with one id is on one part's list (one hash), so the
		// first with it is found from the one before on the same list
		for _, r := range rs {
			if t.firstWithID == nil {
				t.firstWithID = map[int32]int32{}
			}
			first, ok := t.firstWithID[r[1]]
			if !ok {
				first = r[1]
			}
			t.firstWithID[r[0]] = first
		}
	}
	if !t.linear {
		// With no id given twice, the entry whose id a parentId names is the
		// only one with it: an entry written after its parent (nearly every
		// one) is found without a lookup.
		unique := t.firstWithID == nil
		t.parents = make([]int32, n)
		parallel.Each(parts, parts, func(part int) {
			for i := part * n / parts; i < (part+1)*n/parts; i++ {
				t.parents[i] = -1
				if p := ix.Nodes[i].ParentID(); p.Truthy() {
					t.parents[i] = -2
					if unique && i > 0 && ix.Nodes[i-1].ID() == p {
						t.parents[i] = int32(i - 1)
					} else if j, ok := t.ids.get(p, t.id); ok {
						t.parents[i] = int32(j)
					}
				}
			}
		})
	}
	return t
}

// parallelTreeNodes is the number of entries from which NewTree indexes on
// two goroutines (the single-threaded part of inspect after its scan).
const parallelTreeNodes = 1 << 14

// id is node i's effective id (migrated v1 files get synthetic ones).
func (t *Tree) id(i int) Key {
	if t.linear {
		return Key{kind: keyOther, text: "#" + itoa(i)}
	}
	return t.ix.Nodes[i].ID()
}

// parent returns node i's parent index, or -1 for a root.
func (t *Tree) parent(i int) int {
	if t.linear {
		return i - 1
	}
	if p := t.parents[i]; p >= 0 {
		return int(p)
	}
	return -1
}

// Parent is node i's parent index as OpenClaw links it (-1 for a root or a
// parentId that names no entry; a migrated v1 file is one chain).
func (t *Tree) Parent(i int) int { return t.parent(i) }

// Leaf is the index of the entry OpenClaw treats as the current leaf: the
// last entry in file order (-1 for an empty transcript, or when that entry's
// id is null, which pi reads as "before the first entry").
func (t *Tree) Leaf() int {
	n := len(t.ix.Nodes)
	if n == 0 {
		return -1
	}
	last := n - 1
	id := t.id(last)
	if id.kind == keyNull {
		return -1
	}
	if id.Truthy() {
		if j, ok := t.ids.get(id, t.id); ok {
			return j
		}
	}
	return last
}

// Path is the active branch: node indexes from the root to the leaf. A cycle
// in parentId links ends the walk where it would revisit an entry (OpenClaw
// itself would loop forever).
func (t *Tree) Path() []int {
	p, _ := t.PathCycle()
	return p
}

// PathCycle is Path, and whether the walk from the leaf ran into a cycle of
// parentId links (where OpenClaw's buildSessionContext never returns). It
// is worked out once; callers must not change the slice.
func (t *Tree) PathCycle() ([]int, bool) {
	if !t.pathDone {
		t.pathDone = true
		t.path, t.cycle = t.walkPath()
	}
	return t.path, t.cycle
}

// walkPath walks from the leaf to the root twice: once to count the
// entries (stopping where a cycle would revisit one), then to fill the path
// from its end, so that it is allocated once at its size.
func (t *Tree) walkPath() ([]int, bool) {
	leaf := t.Leaf()
	if leaf < 0 {
		return nil, false
	}
	seen := make([]bool, len(t.ix.Nodes))
	n, cur := 0, leaf
	for ; cur >= 0 && !seen[cur]; cur = t.parent(cur) {
		seen[cur] = true
		n++
	}
	cycle := cur >= 0
	path := make([]int, n)
	cur = leaf
	for k := n - 1; k >= 0; k-- {
		path[k] = cur
		cur = t.parent(cur)
	}
	return path, cycle
}

// CycleFirst is the entry written first on the cycle of parentId links
// that node i is on: its parentId names an entry written after it, so it
// is the link `oc repair` cuts (and OpenClaw 2026.9.6 re-attaches when it
// reads the file). inspect and replay name its line.
func (t *Tree) CycleFirst(i int) int {
	first := i
	for cur := t.parent(i); cur >= 0 && cur != i; cur = t.parent(cur) {
		first = min(first, cur)
	}
	return first
}

// FirstWithID is the first node whose id node i's id repeats (false when no
// earlier node has node i's id).
func (t *Tree) FirstWithID(i int) (int, bool) {
	first, ok := t.firstWithID[int32(i)]
	return int(first), ok
}

// Children returns, for every node, the indexes of its children, and the roots.
func (t *Tree) Children() (children [][]int, roots []int) {
	children = make([][]int, len(t.ix.Nodes))
	for i := range t.ix.Nodes {
		p := t.parent(i)
		if p < 0 || p == i {
			roots = append(roots, i)
			continue
		}
		children[p] = append(children[p], i)
	}
	return children, roots
}

// Shape counts the roots, the leaves (no child) and the forks (more than one
// child) of the tree, as Children would give them, without making the
// lists (a transcript of 100,000 entries made as many slices).
func (t *Tree) Shape() (roots, leaves, forks int) {
	kids := make([]int32, len(t.ix.Nodes))
	for i := range t.ix.Nodes {
		p := t.parent(i)
		if p < 0 || p == i {
			roots++
			continue
		}
		kids[p]++
	}
	for _, k := range kids {
		switch {
		case k == 0:
			leaves++
		case k > 1:
			forks++
		}
	}
	return roots, leaves, forks
}

// MissingParent reports whether node i names a parent that does not exist.
func (t *Tree) MissingParent(i int) bool {
	return !t.linear && t.parents[i] == -2
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	return string(b[n:])
}

// idIndex maps entry ids to the index of the last entry with each. It keys
// an open-addressing table (internal/hashtab) by a 64-bit hash of the id,
// cheaper than a map keyed by the id's text or by the hash (NewTree of
// 100k entries: 8.5 ms, 13.5 with a Go map of hashes), and checks the entry
// it finds has the id; should two ids ever share a hash, it keys by the ids
// themselves instead.
type idIndex struct {
	seed maphash.Seed
	// parts split the ids by their hashes' top bit (one part: all ids), so
	// that two goroutines can fill them at once
	parts  []idPart
	hashed func(Key) uint64 // tests: a weaker hash (nil: the seeded one)
}

// idPart is one part of an idIndex.
type idPart struct {
	byHash *hashtab.Map[int32]
	exact  map[Key]int // after a collision: every id of the part
}

// newIDIndex is an index for about n ids in parts parts (1 or 2).
func newIDIndex(n, parts int) idIndex {
	x := idIndex{seed: maphash.MakeSeed(), parts: make([]idPart, parts)}
	for i := range x.parts {
		size := n
		if parts > 1 {
			size = n/parts + n/16 // room for an uneven split before a grow
		}
		x.parts[i].byHash = hashtab.NewMap[int32](size)
	}
	return x
}

func (x *idIndex) hash(k Key) uint64 {
	if x.hashed != nil {
		return x.hashed(k)
	}
	return maphash.String(x.seed, k.text) ^ uint64(k.kind)*0x9E3779B97F4A7C15
}

// partOf is the part of the ids with hash h.
func (x *idIndex) partOf(h uint64) int {
	if len(x.parts) == 1 {
		return 0
	}
	return int(h >> 63)
}

// put makes i the entry with id k (idOf gives any entry's id) and returns
// the entry that had it before, if one did.
func (x *idIndex) put(k Key, i int, idOf func(int) Key) (prev int, had bool) {
	h := x.hash(k)
	return x.parts[x.partOf(h)].put(k, h, i, idOf)
}

// put is idIndex.put of an id of this part, whose hash is h.
func (x *idPart) put(k Key, h uint64, i int, idOf func(int) Key) (prev int, had bool) {
	if x.exact != nil {
		prev, had = x.exact[k]
		x.exact[k] = i
		return prev, had
	}
	j, ok := x.byHash.Put(h, int32(i))
	if ok && idOf(int(j)) != k {
		// two ids, one hash: key by the ids from now on (j's entry is
		// the one the table held for h; i has just replaced it there)
		x.exact = make(map[Key]int, x.byHash.Len()+1)
		x.byHash.Each(func(_ uint64, e int32) { x.exact[idOf(int(e))] = int(e) })
		x.exact[idOf(int(j))] = int(j)
		x.byHash = nil
		x.exact[k] = i
		return 0, false
	}
	return int(j), ok
}

// get is the last entry put with id k.
func (x *idIndex) get(k Key, idOf func(int) Key) (int, bool) {
	h := x.hash(k)
	part := &x.parts[x.partOf(h)]
	if part.exact != nil {
		j, ok := part.exact[k]
		return j, ok
	}
	j, ok := part.byHash.Get(h)
	if !ok || idOf(int(j)) != k {
		return 0, false
	}
	return int(j), true
}
