package durable

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// The background hasher gives the digest the plain one gives, however the
// writes are cut, and its first Digest ends it (a second gives the same).
func TestBackgroundHasherEqualsHasher(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3*backgroundChunk+17)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for _, cut := range []int{1, 7, 1000, backgroundChunk - 1, backgroundChunk, backgroundChunk + 1, len(data)} {
		bg, plain := NewBackgroundHasher(), NewHasher()
		for rest := data; len(rest) > 0; {
			k := min(cut, len(rest))
			chunk := bytes.Clone(rest[:k])
			_, _ = bg.Write(chunk)
			_, _ = plain.Write(chunk)
			clear(chunk) // the caller reuses its buffer
			rest = rest[k:]
		}
		require.Equal(t, plain.Digest(), bg.Digest(), "cut %d", cut)
		require.Equal(t, plain.Digest(), bg.Digest())
	}
	require.Equal(t, NewHasher().Digest(), NewBackgroundHasher().Digest())
}

// Hashing allocates the few chunks it queues, not a copy of what it hashes:
// 64 MiB cost 12 MB of copies when the BLAKE3 package got chunks without
// room after them.
func TestBackgroundHasherAllocatesLittle(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h := NewBackgroundHasher()
	for range 64 {
		_, _ = h.Write(data)
	}
	h.Digest()
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	require.Less(t, allocated, uint64(4<<20), "hashing 64 MiB allocated %d bytes", allocated)
}
