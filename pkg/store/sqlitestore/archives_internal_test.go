package sqlitestore

import (
	"strings"
	"testing"
)

// A blob over 9.6's own limit is refused by its size alone (ReadArchive
// then never loads it).
func TestArchiveBlobOverLimit(t *testing.T) {
	b := &ArchiveBlob{TranscriptArchive: TranscriptArchive{BlobBytes: MaxArchiveBlobBytes + 1, Encoding: "zstd"}}
	if why := b.check(); !strings.Contains(why, "more than OpenClaw 2026.9.6 ever encodes (268435456): not read") {
		t.Errorf("check of an oversized blob: %q", why)
	}
}
