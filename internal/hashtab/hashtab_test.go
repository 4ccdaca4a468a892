package hashtab

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The map holds what a Go map holds, through growth, with 0 and colliding
// low bits among the keys, and gives back the value a key had.
func TestMapMatchesGoMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, start := range []int{0, 1, 100} {
		m := NewMap[int32](start)
		want := map[uint64]int32{}
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
				h = uint64(i % 26) // a few keys, put again and again
			}
			if i%3 == 0 {
				v, ok := m.Get(h)
				wv, wok := want[h]
				require.Equal(t, wok, ok, "Get(%#x) before put %d", h, i)
				require.Equal(t, wv, v, "Get(%#x) before put %d", h, i)
			}
			prev, had := m.Put(h, int32(i))
			wv, wok := want[h]
			require.Equal(t, wok, had, "Put(%#x) %d", h, i)
			require.Equal(t, wv, prev, "Put(%#x) %d", h, i)
			want[h] = int32(i)
		}
		require.Equal(t, len(want), m.Len())
		for h, wv := range want {
			v, ok := m.Get(h)
			require.True(t, ok, "%#x", h)
			require.Equal(t, wv, v, "%#x", h)
		}
		for i := 0; i < 20000; i++ {
			h := r.Uint64()
			_, ok := m.Get(h)
			_, wok := want[h]
			require.Equal(t, wok, ok, "%#x", h)
		}
		seen := map[uint64]int32{}
		m.Each(func(h uint64, v int32) { seen[h] = v })
		require.Equal(t, want, seen)
		require.LessOrEqual(t, 4*m.n, 3*len(m.slots), "at most three quarters full")
	}
}

// The set is the map without values.
func TestSet(t *testing.T) {
	s := NewSet(0)
	require.False(t, s.Has(0))
	for _, h := range []uint64{0, 1, 1 << 63, 1} {
		s.Add(h)
	}
	require.Equal(t, 3, s.Len())
	require.True(t, s.Has(0))
	require.True(t, s.Has(1<<63))
	require.False(t, s.Has(2))
}

// Keys that share their low 40 bits, as ids made for it could, still
// spread over the table: no run of taken slots grows long (with the low
// bits as the slot, all 100,000 would form one run).
func TestMapSpreadsSharedLowBits(t *testing.T) {
	s := NewSet(16)
	for i := 1; i <= 100000; i++ {
		s.Add(uint64(i) << 40)
	}
	run, longest := 0, 0
	for _, sl := range append(s.m.slots, s.m.slots...) { // runs wrap around
		if sl.h == 0 {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	require.Less(t, longest, 1000)
	for i := 1; i <= 100000; i++ {
		require.True(t, s.Has(uint64(i)<<40))
	}
}

// BenchmarkPut100k is the id index of a 100 MiB transcript: 100,000
// distinct hashes put into a map made for them, then each looked up.
func BenchmarkPut100k(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	keys := make([]uint64, 100000)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	b.ReportAllocs()
	for b.Loop() {
		m := NewMap[int32](len(keys))
		for i, h := range keys {
			m.Put(h, int32(i))
		}
		for _, h := range keys {
			m.Get(h)
		}
	}
}
