// Package zstdframe writes small zstd frames by hand for tests: a frame of
// raw and RLE blocks (RFC 8878, sections 3.1.1 and 3.1.1.2), so that a
// test can make a decompression bomb (a few kilobytes that decode to
// gigabytes) without compressing gigabytes or keeping a large file.
package zstdframe

// maxBlock is the most one block regenerates (Block_Maximum_Size with the
// 128 KiB window the frame declares).
const maxBlock = 128 << 10

// Bomb is one zstd frame that decodes to prefix, then n bytes of fill,
// then suffix: about 4 bytes per 128 KiB of fill. The frame declares a
// window of 128 KiB and no content size.
func Bomb(prefix []byte, fill byte, n int64, suffix []byte) []byte {
	// magic, Frame_Header_Descriptor 0 (a Window_Descriptor, no content
	// size, no checksum, no dictionary), Window_Descriptor 2^(10+7)
	out := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3}
	type block struct {
		typ  byte // 0 raw, 1 RLE
		size int
		data []byte
	}
	var blocks []block
	for p := prefix; len(p) > 0; {
		k := min(len(p), maxBlock)
		blocks = append(blocks, block{0, k, p[:k]})
		p = p[k:]
	}
	for left := n; left > 0; {
		k := min(left, maxBlock)
		blocks = append(blocks, block{1, int(k), []byte{fill}})
		left -= k
	}
	for s := suffix; len(s) > 0; {
		k := min(len(s), maxBlock)
		blocks = append(blocks, block{0, k, s[:k]})
		s = s[k:]
	}
	if len(blocks) == 0 {
		blocks = append(blocks, block{0, 0, nil})
	}
	for i, b := range blocks {
		h := uint32(b.size)<<3 | uint32(b.typ)<<1
		if i == len(blocks)-1 {
			h |= 1 // Last_Block
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16))
		out = append(out, b.data...)
	}
	return out
}
