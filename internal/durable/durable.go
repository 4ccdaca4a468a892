package durable

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"lukechampine.com/blake3"
)

// Digest identifies a file's bytes: its size and its BLAKE3 (what oc writes
// since 2026-12; as fast again as SHA-256 three times over, and as strong)
// or, in manifests older oc releases wrote, its SHA-256.
type Digest struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
	BLAKE3 string `json:"blake3,omitempty"`
}

// Equal reports whether two digests name the same bytes: the same size and
// the same hash, by BLAKE3 where both have one, else by SHA-256. Digests
// with no hash in common are never equal.
func (d Digest) Equal(o Digest) bool {
	switch {
	case d.Size != o.Size:
		return false
	case d.BLAKE3 != "" && o.BLAKE3 != "":
		return d.BLAKE3 == o.BLAKE3
	case d.SHA256 != "" && o.SHA256 != "":
		return d.SHA256 == o.SHA256
	}
	return false
}

// Short names the digest for a message: "<size> bytes, blake3 <12 hex>".
func (d Digest) Short() string {
	name, sum := "blake3", d.BLAKE3
	if sum == "" {
		name, sum = "sha256", d.SHA256
	}
	return fmt.Sprintf("%d bytes, %s %.12s", d.Size, name, sum)
}

// newBLAKE3 is the BLAKE3-256 every new digest uses.
func newBLAKE3() hash.Hash { return blake3.New(32, nil) }

// Hasher counts and hashes what is written to it.
type Hasher struct {
	b3, sha hash.Hash // sha: only for a checking hasher
	n       int64
}

// NewHasher returns an empty Hasher (BLAKE3), for digests oc records.
func NewHasher() *Hasher { return &Hasher{b3: newBLAKE3()} }

// NewCheckingHasher returns an empty Hasher whose digest has both hashes, to
// check bytes against a digest recorded by any oc release (Equal takes the
// hash they share).
func NewCheckingHasher() *Hasher { return &Hasher{b3: newBLAKE3(), sha: sha256.New()} }

// Write implements io.Writer; it never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	h.b3.Write(p)
	if h.sha != nil {
		h.sha.Write(p)
	}
	h.n += int64(len(p))
	return len(p), nil
}

// Digest is the size and hash(es) of everything written so far.
func (h *Hasher) Digest() Digest {
	d := Digest{Size: h.n, BLAKE3: hex.EncodeToString(h.b3.Sum(nil))}
	if h.sha != nil {
		d.SHA256 = hex.EncodeToString(h.sha.Sum(nil))
	}
	return d
}

// DigestFile reads a regular file and returns its digest. When prefix >= 0,
// it also returns the digest of its first prefix bytes (or of the whole file
// when it is shorter), to tell "bytes appended" from "bytes changed".
func DigestFile(path string, prefix int64) (whole, head Digest, err error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return Digest{}, Digest{}, err
	}
	defer f.Close()
	h := NewCheckingHasher() // compared with what any release recorded
	if prefix >= 0 {
		if _, err := io.CopyN(h, f, prefix); err != nil && !errors.Is(err, io.EOF) {
			return Digest{}, Digest{}, fmt.Errorf("%s: read: %w", path, err)
		}
		head = h.Digest()
	}
	if _, err := io.Copy(h, f); err != nil {
		return Digest{}, Digest{}, fmt.Errorf("%s: read: %w", path, err)
	}
	return h.Digest(), head, nil
}

// NewContextWriter returns a writer to w that fails with ctx's error once
// ctx is cancelled, so that a long copy stops between two writes.
func NewContextWriter(ctx context.Context, w io.Writer) io.Writer {
	return contextWriter{ctx, w}
}

// contextWriter is NewContextWriter's writer: a context is kept here only for
// the duration of one copy, as io.Writer has no way to pass it.
type contextWriter struct {
	ctx context.Context
	w   io.Writer
}

// Write implements io.Writer.
func (c contextWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
