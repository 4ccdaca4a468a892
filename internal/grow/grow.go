// Package grow is how oc grows a slice that can get large (an index of
// every entry, a session's rows, a long line): by doubling, where append
// grows a large slice by a quarter and so copies it many times over.
package grow

// Cap returns s with room for at least n elements: s itself when it has
// it, else a copy of s with capacity max(n, 2*cap(s), floor).
func Cap[T any](s []T, n, floor int) []T {
	if n <= cap(s) {
		return s
	}
	grown := make([]T, len(s), max(n, 2*cap(s), floor))
	copy(grown, s)
	return grown
}
