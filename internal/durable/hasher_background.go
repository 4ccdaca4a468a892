package durable

import (
	"encoding/hex"
)

// BackgroundHasher is a Hasher that hashes on a goroutine of its own, so that
// hashing a large file costs the writer little more than a copy of what it
// writes (repair reads, rewrites and digests a transcript at once: on two
// cores the digests of the original and of the new file no longer add to the
// time). Close it with Digest, which waits for the hashing to finish; it is
// not safe for concurrent use.
type BackgroundHasher struct {
	n      int64
	chunks chan []byte
	free   chan []byte
	sum    chan []byte
	digest *Digest
	cur    []byte // the chunk being gathered
}

const (
	// backgroundChunk is the most a Write hands over at a time.
	backgroundChunk = 256 << 10
	// backgroundSlack is room left after a chunk: the BLAKE3 package copies
	// each subtree of fewer than 16 KiB that ends a write into a buffer of
	// its own unless the slice it gets has room for 16 KiB (27 MB of copies
	// for the two digests of a 100 MiB repair).
	backgroundSlack = 64 << 10
	// backgroundQueue is how many chunks wait for the hashing goroutine;
	// it hashes faster than repair writes, so a few are enough.
	backgroundQueue = 3
)

// NewBackgroundHasher starts an empty BackgroundHasher.
func NewBackgroundHasher() *BackgroundHasher {
	h := &BackgroundHasher{chunks: make(chan []byte, backgroundQueue), free: make(chan []byte, backgroundQueue+2), sum: make(chan []byte, 1)}
	go func() {
		sha := newBLAKE3()
		for c := range h.chunks {
			sha.Write(c)
			select {
			case h.free <- c[:0]:
			default:
			}
		}
		h.sum <- sha.Sum(nil)
	}()
	return h
}

// Write implements io.Writer; it never fails. Small writes are gathered
// into chunks of backgroundChunk bytes before they are handed over.
func (h *BackgroundHasher) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if h.cur == nil {
			select {
			case h.cur = <-h.free:
			default:
				h.cur = make([]byte, 0, backgroundChunk+backgroundSlack)
			}
		}
		k := min(len(p), backgroundChunk-len(h.cur))
		h.cur = append(h.cur, p[:k]...)
		p = p[k:]
		if len(h.cur) == backgroundChunk {
			h.chunks <- h.cur
			h.cur = nil
		}
	}
	h.n += int64(n)
	return n, nil
}

// Digest is the size and BLAKE3 of everything written; the first call ends
// the hashing (write nothing after it).
func (h *BackgroundHasher) Digest() Digest {
	if h.digest == nil {
		if len(h.cur) > 0 {
			h.chunks <- h.cur
		}
		h.cur = nil
		close(h.chunks)
		h.digest = &Digest{Size: h.n, BLAKE3: hex.EncodeToString(<-h.sum)}
	}
	return *h.digest
}
