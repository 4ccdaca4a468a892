package pages

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Populate changes no element: neither the filled part of a slice nor the
// room up to its capacity, at any alignment of its ends.
func TestPopulateKeepsContents(t *testing.T) {
	for _, skip := range []int{0, 1, 4095, 4096, 4097} {
		backing := make([]byte, 3*MinBytes+skip+7)
		for i := range backing {
			backing[i] = byte(i*7 + skip)
		}
		s := backing[skip : skip+2*MinBytes : len(backing)] // len < cap
		Populate(s)
		for i := range backing {
			if backing[i] != byte(i*7+skip) {
				t.Fatalf("byte %d (slice from %d) is %d after Populate, want %d", i, skip, backing[i], byte(i*7+skip))
			}
		}
	}
	type record struct {
		a, b int64
		s    string
	}
	rs := make([]record, 0, MinBytes)
	Populate(rs)
	rs = append(rs, record{1, 2, "x"})
	require.Equal(t, []record{{1, 2, "x"}}, rs)
}

// Slices too small to be worth a system call, nil slices and slices of a
// type without size are left alone.
func TestPopulateSmallAndEmpty(t *testing.T) {
	small := []byte("abc")
	Populate(small)
	require.Equal(t, "abc", string(small))
	Populate([]int(nil))
	Populate(make([]struct{}, 1<<30))
}
