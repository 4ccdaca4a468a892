package repair

import (
	"errors"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// The parent-cycle rule. OpenClaw 2026.5.6's buildSessionContext walks
// parentId links from the leaf until an entry has none: on a cycle of links
// (m1's parent m3, m3's m2, m2's m1; an entry its own parent) it never
// returns and the session hangs. 2026.9.6 reads such a file without
// hanging: scanSessionTranscriptNavigation (transcript-tree-*.mjs) gives
// an entry whose parentId names no entry read before it
// ("canonicalParentIsStale") the entry read just before it as its parent,
// and the first entry of the file stays a root.
//
// Every cycle has such a link: its entry written first names one written
// after it. The rule cuts exactly that link, the one 9.6 cuts, and gives
// the entry the parent 9.6 reads for it: the nearest surviving entry with
// an id before it, or null when there is none. So 2026.5.6's context build
// returns, and 2026.9.6 reads the same branch as before. A cut can close
// another cycle through the entry before (that entry's own parent written
// after it): that one is cut the same way, until none is left. The original
// line is quarantined.
//
// Planning stays one cheap pass for a file without a cycle: an entry whose
// parent is the entry just before it (nearly all) is not looked at; only
// an entry whose parent was not seen before it is noted, and only when such
// a parent turns up later in the file is the file planned again with every
// link kept (errParentLinks), the cycles found, and planned once more with
// the cuts (errCycleCuts).

// cutKey names one entry: its line and its id's hash (a salvaged line can
// hold several entries).
type cutKey struct {
	line int64
	id   uint64
}

// link is one surviving entry's id and parentId (hashes of their text), and
// the id of the nearest surviving entry with an id before it (the parent a
// cut gives it).
type link struct {
	key              cutKey
	parent, prev     uint64
	parentOK, prevOK bool
}

// cycleState is the planner's state for the rule (RuleSetAll).
type cycleState struct {
	// prev is the id hash of the last surviving entry with an id.
	prev   uint64
	prevOK bool
	// forward: parent hashes that named no entry read before theirs
	forward []uint64
	// links (Options.links): every surviving entry with a string id
	links []link
}

// errParentLinks: an entry names a parent written after it; the file must
// be planned again with every link kept.
var errParentLinks = errors.New("an entry's parent is written after it: plan again with every link kept")

// errCycleCuts carries the entries whose parentId the rule cuts; the file
// must be planned again with them.
type errCycleCuts struct{ cuts map[cutKey]bool }

func (e *errCycleCuts) Error() string {
	return countNoun(len(e.cuts), "parentId link closes a cycle", "parentId links close cycles") + ": plan again with them cut"
}

// cutCycle is the rule on one entry (not the header): when the entry's link
// is one of the cuts, its parentId becomes the nearest surviving entry
// before it (null when none).
func (pl *planner) cutCycle(ln jsonl.Line, e *Entry, out []byte, changed bool, hits []hit) ([]byte, bool, []hit) {
	if len(pl.opts.cuts) == 0 {
		return out, changed, hits
	}
	f := e.prepare(true)
	if !f.idOK || !pl.opts.cuts[cutKey{ln.Num, pl.outID(f)}] {
		return out, changed, hits
	}
	target := []byte("null")
	if pl.lastOK {
		target = append([]byte(nil), pl.lastSurv...)
	}
	cur := e
	if changed {
		cur = ParseEntry(out)
	}
	old := string(cur.ParentID)
	out, changed = cur.withParent(target), true
	detail := "parentId " + old + " names an entry written after it and closes a cycle of parentId links (OpenClaw 2026.5.6 hangs on it): now " + string(target) + ", the parent OpenClaw 2026.9.6 reads for it"
	if !pl.lastOK {
		detail = "parentId " + old + " names an entry written after it and closes a cycle of parentId links (OpenClaw 2026.5.6 hangs on it): now null (no entry before it), as OpenClaw 2026.9.6 reads it"
	}
	return out, changed, append(hits, hit{RuleParentCycle, 1, detail})
}

// outID is the hash of the id the entry is written with (a repeated id's
// new one, else its own).
func (pl *planner) outID(f *facts) uint64 {
	if pl.newID != nil {
		if h, ok := hashStrValue(pl.newID); ok {
			return h
		}
	}
	return f.idRaw
}

// noteLink records the entry's link (before its own id is seen: an entry
// that is its own parent names an id not seen before it). out is the entry
// as it will be written.
func (pl *planner) noteLink(ln jsonl.Line, e *Entry, out []byte, changed bool) {
	c := &pl.cyc
	f := e.prepare(true)
	parentRaw := e.ParentID
	if changed {
		parentRaw = ParseEntry(out).ParentID
	}
	parent, parentOK := hashStrValue(parentRaw)
	parentOK = parentOK && jsonl.ValueKind(parentRaw) == '"'
	if pl.opts.links && f.idOK {
		c.links = append(c.links, link{key: cutKey{ln.Num, pl.outID(f)}, parent: parent, parentOK: parentOK, prev: c.prev, prevOK: c.prevOK})
	}
	if parentOK && !(c.prevOK && parent == c.prev) && !pl.seenHas(parent) {
		c.forward = append(c.forward, parent)
	}
	if f.idOK {
		c.prev, c.prevOK = pl.outID(f), true
	}
}

// cycleReplan is what done asks of the next pass, nil when the plan
// stands: the links when an entry names a parent written after it (and
// they are not kept yet), the cuts when the links hold a cycle not cut yet.
func (pl *planner) cycleReplan() error {
	if pl.set != RuleSetAll {
		return nil
	}
	if !pl.opts.links {
		for _, h := range pl.cyc.forward {
			if pl.seenHas(h) {
				return errParentLinks
			}
		}
		return nil
	}
	cuts := cycleCuts(pl.cyc.links)
	if len(cuts) == 0 {
		return nil
	}
	for k := range pl.opts.cuts {
		cuts[k] = true
	}
	return &errCycleCuts{cuts: cuts}
}

// cycleCuts finds the cycles of the links (a parentId names the last entry
// with that id, as OpenClaw's Map does) and returns the links to cut: in
// each cycle, that of its entry written first, which then points at the
// entry before it; rounds go on while a cut closes a new cycle.
func cycleCuts(links []link) map[cutKey]bool {
	byID := make(map[uint64]int, len(links))
	for i, l := range links {
		byID[l.key.id] = i
	}
	parents := make([]int, len(links))
	resolve := func(h uint64, ok bool) int {
		if j, found := byID[h]; ok && found {
			return j
		}
		return -1
	}
	for i, l := range links {
		parents[i] = resolve(l.parent, l.parentOK)
	}
	cuts := map[cutKey]bool{}
	state := make([]uint8, len(links)) // 0 new, 1 on the walk, 2 done
	var walk []int
	for round := 0; round < len(links); round++ {
		clear(state)
		cut := false
		for i := range links {
			if state[i] != 0 {
				continue
			}
			walk = walk[:0]
			cur := i
			for cur >= 0 && state[cur] == 0 {
				state[cur] = 1
				walk = append(walk, cur)
				cur = parents[cur]
			}
			if cur >= 0 && state[cur] == 1 {
				first := cur // the member written first (links are in file order)
				for k := len(walk) - 1; walk[k] != cur; k-- {
					first = min(first, walk[k])
				}
				cuts[links[first].key] = true
				parents[first] = resolve(links[first].prev, links[first].prevOK)
				cut = true
			}
			for _, j := range walk {
				state[j] = 2
			}
		}
		if !cut {
			break
		}
	}
	return cuts
}
