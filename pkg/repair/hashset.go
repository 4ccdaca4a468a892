package repair

import "math/rand/v2"

// hashSet is a set of 64-bit hashes (of ids), open addressing with linear
// probing in a power-of-two table at most three quarters full: small, so
// that the table of a large transcript's ids stays in cache (its inserts
// land at random) and costs few fresh pages. It replaces a map where one
// insert and one lookup per entry of a damaged transcript took a quarter
// of the planning (100k entries: 24 ms of map growth and hashing, 12 here).
//
// A probe starts at the top bits of (hash XOR the set's own random seed)
// times a Fibonacci constant: hashBytes is not seeded, and ids made to
// share their hashes' low bits would otherwise fill one run of slots and
// make every insert walk it.
type hashSet struct {
	slots []uint64 // 0: empty (the hash 0 itself is kept in zero)
	n     int
	zero  bool
	seed  uint64
	shift uint // 64 - log2(len(slots))
}

// newHashSet returns a set with room for about n hashes before it grows.
func newHashSet(n int) *hashSet {
	size, shift := 16, uint(60)
	for 3*size < 4*n {
		size, shift = size<<1, shift-1
	}
	return &hashSet{slots: make([]uint64, size), seed: rand.Uint64(), shift: shift}
}

// slot is where h's probe starts.
func (s *hashSet) slot(h uint64) uint64 { return ((h ^ s.seed) * 0x9E3779B97F4A7C15) >> s.shift }

// add puts h in the set.
func (s *hashSet) add(h uint64) {
	if h == 0 {
		s.zero = true
		return
	}
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	if s.insert(h) {
		s.n++
	}
}

// has reports whether h is in the set.
func (s *hashSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	_, found := s.find(h)
	return found
}

// insert places h (not 0) and reports whether it was new.
func (s *hashSet) insert(h uint64) bool {
	i, found := s.find(h)
	if !found {
		s.slots[i] = h
	}
	return !found
}

// find returns the slot that holds h (not 0), or the empty slot where its
// probe ends.
func (s *hashSet) find(h uint64) (i uint64, found bool) {
	mask := uint64(len(s.slots) - 1)
	for i = s.slot(h); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return i, true
		case 0:
			return i, false
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	s.slots, s.shift = make([]uint64, 2*len(old)), s.shift-1
	for _, h := range old {
		if h != 0 {
			s.insert(h)
		}
	}
}
