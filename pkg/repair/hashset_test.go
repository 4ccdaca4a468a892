package repair

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The set holds what a map holds, through growth, with 0 and colliding
// low bits among the hashes.
func TestHashSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, start := range []int{0, 1, 100} {
		s := newHashSet(start)
		want := map[uint64]bool{}
		for i := 0; i < 20000; i++ {
			var h uint64
			switch i % 4 {
			case 0:
				h = r.Uint64()
			case 1:
				h = uint64(i) << 40 // equal low bits: long probe runs
			case 2:
				h = uint64(r.IntN(64)) // small values, repeats, and 0
			default:
				h = hashStr(string(rune('a' + i%26)))
			}
			if i%3 == 0 {
				require.Equal(t, want[h], s.has(h), "has(%#x) before add %d", h, i)
			}
			s.add(h)
			want[h] = true
		}
		for h := range want {
			require.True(t, s.has(h), "%#x", h)
		}
		for i := 0; i < 20000; i++ {
			h := r.Uint64()
			require.Equal(t, want[h], s.has(h), "%#x", h)
		}
		require.Equal(t, len(want)-boolInt(want[0]), s.n)
		require.LessOrEqual(t, 4*s.n, 3*len(s.slots), "at most three quarters full")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Hashes that share their low 40 bits, as ids made for it could, still
// spread over the table: no run of taken slots grows long (with the low
// bits as the slot, all 100,000 would form one run).
func TestHashSetSpreadsSharedLowBits(t *testing.T) {
	s := newHashSet(16)
	for i := 1; i <= 100000; i++ {
		s.add(uint64(i) << 40)
	}
	run, longest := 0, 0
	for _, h := range append(s.slots, s.slots...) { // runs wrap around
		if h == 0 {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	require.Less(t, longest, 1000)
	for i := 1; i <= 100000; i++ {
		require.True(t, s.has(uint64(i)<<40))
	}
}
