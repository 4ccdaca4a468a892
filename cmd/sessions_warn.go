package cmd

import (
	"github.com/openclaw-tools/oc/pkg/store"
)

// warnSkippedIndexes says on stderr which sessions.json files the lookup
// passed over (a FIFO named sessions.json): sessions are then found by
// their files only, and their keys are not known.
func warnSkippedIndexes(g *Globals, st *store.State) {
	for _, s := range st.SkippedIndexes() {
		warnSkippedIndex(g, s)
	}
}

// warnSkippedIndex is warnSkippedIndexes' line for one of them.
func warnSkippedIndex(g *Globals, index string) {
	g.warn(oneLine(index) + "; skipped, sessions are looked up by their transcript files only")
}
