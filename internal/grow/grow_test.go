package grow

import (
	"slices"
	"testing"
)

// Cap keeps s's elements, gives room for n, doubles at least, starts at
// floor, and does not copy when there is room.
func TestCap(t *testing.T) {
	s := []int{1, 2, 3}
	if got := Cap(s, 3, 100); &got[0] != &s[0] || cap(got) != cap(s) {
		t.Fatal("a slice with room was copied")
	}
	got := Cap(s, 4, 0)
	if !slices.Equal(got, []int{1, 2, 3}) || cap(got) < 2*cap(s) || &got[0] == &s[0] {
		t.Fatalf("Cap(%v, 4, 0) = %v cap %d: want the elements, a new array, cap >= %d", s, got, cap(got), 2*cap(s))
	}
	if got := Cap(s, 10, 0); cap(got) < 10 {
		t.Fatalf("cap %d, want room for 10", cap(got))
	}
	if got := Cap([]byte(nil), 1, 64); cap(got) != 64 || len(got) != 0 {
		t.Fatalf("from nil: len %d cap %d, want 0 and the floor 64", len(got), cap(got))
	}
	var copies int
	var b []int
	for i := range 100_000 {
		if len(b) == cap(b) {
			copies++
		}
		b = append(Cap(b, len(b)+1, 256), i)
	}
	if copies > 11 {
		t.Fatalf("%d copies growing to 100,000 elements one at a time, want at most 11 (doubling from 256)", copies)
	}
}
