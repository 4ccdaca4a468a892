// Package hashtab holds tables keyed by 64-bit hashes (of ids, of entry
// bytes): open addressing with linear probing in a power-of-two table at
// most three quarters full. Small, so that the table of a large
// transcript's ids stays in cache (its inserts land at random) and costs
// few fresh pages. Through a Go map, one insert and one lookup per entry of
// a large damaged transcript took a quarter of a repair plan's time, and
// the tree's id index of 100k entries 13.5 ms of `oc inspect`'s
// single-threaded finish (8.5 ms here).
//
// A probe starts at the top bits of (hash XOR the table's own random seed)
// times a Fibonacci constant: a caller's hash need not be seeded, and keys
// made to share their low bits would otherwise fill one run of slots and
// make every insert walk it.
//
// The keys are hashes: two different things may share one. Callers that
// must tell them apart keep the thing itself and compare (see
// transcript's id index).
package hashtab

import (
	"math/rand/v2"
)

// Map maps 64-bit hashes to values of type V. The zero Map is not ready:
// use NewMap.
type Map[V any] struct {
	// slots hold the keys (0: empty; the key 0 itself is kept in zero,
	// zeroVal) beside their values, so that a lookup misses the cache once
	slots   []slot[V]
	n       int // keys in the table (0 not counted)
	zero    bool
	zeroVal V
	seed    uint64
	shift   uint // 64 - log2(len(slots))
}

type slot[V any] struct {
	h uint64
	v V // no memory when V is struct{}
}

// NewMap returns a map with room for about n keys before it grows.
func NewMap[V any](n int) *Map[V] {
	size, shift := 16, uint(60)
	for 3*size < 4*n {
		size, shift = size<<1, shift-1
	}
	return &Map[V]{slots: make([]slot[V], size), seed: rand.Uint64(), shift: shift}
}

// Len is how many keys the map holds.
func (m *Map[V]) Len() int {
	if m.zero {
		return m.n + 1
	}
	return m.n
}

// slot is where h's probe starts.
func (m *Map[V]) slot(h uint64) uint64 { return ((h ^ m.seed) * 0x9E3779B97F4A7C15) >> m.shift }

// Get returns h's value.
func (m *Map[V]) Get(h uint64) (v V, ok bool) {
	if h == 0 {
		return m.zeroVal, m.zero
	}
	if i, found := m.find(h); found {
		return m.slots[i].v, true
	}
	return v, false
}

// Put sets h's value to v and returns the value it had, if it had one.
func (m *Map[V]) Put(h uint64, v V) (prev V, had bool) {
	if h == 0 {
		prev, had = m.zeroVal, m.zero
		m.zero, m.zeroVal = true, v
		return prev, had
	}
	if 4*(m.n+1) > 3*len(m.slots) {
		m.grow()
	}
	i, found := m.find(h)
	sl := &m.slots[i]
	if found {
		prev = sl.v
	} else {
		sl.h = h
		m.n++
	}
	sl.v = v
	return prev, found
}

// Each calls fn with every key and its value, in no order.
func (m *Map[V]) Each(fn func(h uint64, v V)) {
	if m.zero {
		fn(0, m.zeroVal)
	}
	for _, sl := range m.slots {
		if sl.h != 0 {
			fn(sl.h, sl.v)
		}
	}
}

// find returns the slot that holds h (not 0), or the empty slot where its
// probe ends.
func (m *Map[V]) find(h uint64) (i uint64, found bool) {
	mask := uint64(len(m.slots) - 1)
	for i = m.slot(h); ; i = (i + 1) & mask {
		switch m.slots[i].h {
		case h:
			return i, true
		case 0:
			return i, false
		}
	}
}

func (m *Map[V]) grow() {
	old := m.slots
	m.slots, m.shift = make([]slot[V], 2*len(old)), m.shift-1
	for _, sl := range old {
		if sl.h != 0 {
			j, _ := m.find(sl.h)
			m.slots[j] = sl
		}
	}
}

// Set is a set of 64-bit hashes (a Map of no values: they take no memory).
type Set struct{ m *Map[struct{}] }

// NewSet returns a set with room for about n hashes before it grows.
func NewSet(n int) *Set { return &Set{NewMap[struct{}](n)} }

// Add puts h in the set.
func (s *Set) Add(h uint64) { s.m.Put(h, struct{}{}) }

// Has reports whether h is in the set.
func (s *Set) Has(h uint64) bool {
	_, ok := s.m.Get(h)
	return ok
}

// Len is how many hashes the set holds.
func (s *Set) Len() int { return s.m.Len() }
