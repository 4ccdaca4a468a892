package nav96

// The first kept entry of a boundary whose firstKeptEntryId names no entry
// the session manager loaded, but an id the bounded read saw skipped: 9.6's
// bounded read (readSessionTranscriptBoundedActiveContextCore, dist/
// session-accessor.sqlite-active-context-*.mjs) records, for each selected
// row whose parentId is not the row before it, that parentId as an opaque
// parent of the row before (opaqueParents), and the active leaf likewise;
// the session manager's normalizeEntryParent (dist/session-manager-*.mjs)
// then points such a boundary at resolveOpaqueSessionFirstKeptEntryId's
// answer (dist/session-entry-navigation-*.mjs).

// OpaqueFirstKept is that rule over the rows the bounded read hands the
// session manager, in its order (header excluded; injected says the first
// is a boundary put in front of the newer rows); leaf is the session's
// active leaf id ("" none). It returns, by index into rows, the
// firstKeptEntryId a boundary takes instead of its own.
func OpaqueFirstKept(rows []*Record, injected bool, leaf string) map[int]string {
	opaque := map[string]ref{}
	prev := ref{} // previousId (undefined)
	for k, r := range rows {
		switch {
		case injected && k == 0:
			prev = rawRef(r)
		case r.Object && r.rawID.present && r.hasParent:
			if prev.kind == refStr && r.parent.str && r.parent.s != prev.s {
				opaque[r.parent.s] = prev
			}
			prev = rawRef(r)
		}
	}
	if leaf != "" && !(prev.kind == refStr && prev.s == leaf) {
		if prev.kind == refStr {
			opaque[leaf] = prev
		} else {
			opaque[leaf] = nullRef
		}
	}
	if len(opaque) == 0 {
		return nil
	}
	byID := map[string]*Record{}
	for _, r := range rows {
		if r.Indexed() {
			byID[r.id.s] = r
		}
	}
	var out map[int]string
	for k, r := range rows {
		fk, ok := r.FirstKept()
		if !r.Indexed() || !r.Boundary() || !ok {
			continue
		}
		if _, known := byID[fk]; known {
			continue
		}
		if _, isOpaque := opaque[fk]; !isOpaque {
			continue
		}
		if kept, ok := resolveOpaqueFirstKept(fk, r, rows, byID, opaque); ok && kept != "" && kept != fk {
			if out == nil {
				out = map[int]string{}
			}
			out[k] = kept
		}
	}
	return out
}

// rawRef is a row's id as the bounded read compares it: a string, or
// something else (undefined, a number, …) that matches no parentId.
func rawRef(r *Record) ref {
	if r.rawID.str {
		return str(r.rawID.s)
	}
	return ref{}
}

// canonicalParent is resolveSessionCanonicalParentId: id followed through
// the opaque parents to an entry the manager holds; ok is false when the
// walk ends at null or in a loop.
func canonicalParent(id string, byID map[string]*Record, opaque map[string]ref) (string, bool) {
	seen := map[string]bool{}
	cur := str(id)
	for cur.kind == refStr && cur.s != "" {
		if _, held := byID[cur.s]; held {
			return cur.s, true
		}
		if seen[cur.s] {
			return "", false
		}
		seen[cur.s] = true
		next, ok := opaque[cur.s]
		if !ok {
			next = nullRef
		}
		cur = next
	}
	return cur.s, cur.kind == refStr
}

// resolveOpaqueFirstKept is resolveOpaqueSessionFirstKeptEntryId for the
// boundary b: the opaque id's canonical entry; else, walking b's parents,
// the entry just below the opaque id; else the first entry whose opaque
// ancestry reaches it; else b's own canonical parent (fallbackParentId).
// The entries' parentIds are taken as stored.
func resolveOpaqueFirstKept(fk string, b *Record, rows []*Record, byID map[string]*Record, opaque map[string]ref) (string, bool) {
	if p, ok := canonicalParent(fk, byID, opaque); ok {
		return p, true
	}
	seen := map[string]bool{}
	cur := parentRef(b)
	below := ""
	for cur.kind == refStr && cur.s != "" && !seen[cur.s] {
		if cur.s == fk {
			if below != "" {
				return below, true
			}
			break
		}
		seen[cur.s] = true
		if e, held := byID[cur.s]; held {
			below = e.id.s
			cur = parentRef(e)
		} else if next, ok := opaque[cur.s]; ok {
			cur = next
		} else {
			cur = nullRef
		}
	}
	for _, e := range rows {
		if !e.Indexed() {
			continue
		}
		ancestors := map[string]bool{}
		p := parentRef(e)
		for p.kind == refStr && p.s != "" && !ancestors[p.s] {
			next, isOpaque := opaque[p.s]
			if !isOpaque {
				break
			}
			if p.s == fk {
				return e.id.s, true
			}
			ancestors[p.s] = true
			p = next
		}
	}
	if p := parentRef(b); p.kind == refStr {
		return canonicalParent(p.s, byID, opaque)
	}
	return "", false
}

// parentRef is a row's parentId as stored, when it is a string.
func parentRef(r *Record) ref {
	if r.parent.str {
		return str(r.parent.s)
	}
	return nullRef
}
