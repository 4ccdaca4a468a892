// Package transcriptgen writes large, deterministic, realistic OpenClaw
// transcripts with a chosen share of damaged lines, for benchmarks and for
// the crash (SIGKILL) test of oc repair.
package transcriptgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Options describe the transcript to write.
type Options struct {
	Size       int64   // approximate size in bytes
	DamageRate float64 // share of entry lines damaged (0.001 = 0.1%)
	Seed       uint64
}

// Stats say what was written.
type Stats struct {
	Bytes, Lines, Damaged int64
}

const words = "the quick brown fox jumps over a lazy dog while tool output streams in with paths like /home/user/project/src and numbers 12345 and unicode é ü 日本 "

// Write writes the transcript to w.
func Write(w io.Writer, opts Options) (Stats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	var st Stats
	emit := func(s string) {
		n, _ := bw.WriteString(s)
		bw.WriteByte('\n')
		st.Bytes += int64(n + 1)
		st.Lines++
	}
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			i := rng.IntN(len(words) - 20)
			b.WriteString(words[i : i+20])
		}
		return strings.ToValidUTF8(b.String(), "")
	}
	emit(`{"type":"session","version":3,"id":"0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/home/user/project"}`)
	parent := "null"
	id := 0
	ms := int64(1778576400000)
	next := func() (string, string) {
		id++
		ms += int64(rng.IntN(5000))
		return fmt.Sprintf("%08x", id), fmt.Sprintf("2026-05-12T%02d:%02d:%02d.%03dZ", (ms/3600000)%24, (ms/60000)%60, (ms/1000)%60, ms%1000)
	}
	var pending string // a line held back to glue onto the next one
	line := func(s string) {
		if pending != "" {
			s = pending + s
			pending = ""
		}
		if opts.DamageRate > 0 && rng.Float64() < opts.DamageRate {
			st.Damaged++
			switch rng.IntN(5) {
			case 0: // cut off by a crash, the next append starts a new line
				s = s[:len(s)/2]
			case 1: // the newline was lost: glued onto the next entry
				pending = s
				return
			case 2: // NUL run before the entry
				s = "\x00\x00\x00\x00\x00\x00\x00\x00" + s
			case 3: // garbage after
				s = s + "\x00\x00}}"
			case 4: // cut-off record then a complete one
				s = s[:len(s)/3] + s
			}
		}
		emit(s)
	}
	for st.Bytes < opts.Size {
		uid, uts := next()
		line(fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"user","content":[{"type":"text","text":"%s"}],"timestamp":%d}}`, uid, parent, uts, text(40+rng.IntN(400)), ms))
		aid, ats := next()
		call := fmt.Sprintf("call_%d", id)
		line(fmt.Sprintf(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"assistant","content":[{"type":"thinking","thinking":"%s","thinkingSignature":"sig"},{"type":"toolCall","id":"%s","name":"read","arguments":{"path":"/home/user/project/file.go"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1200,"output":80,"cacheRead":0,"cacheWrite":0,"totalTokens":1280,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":%d}}`, aid, uid, ats, text(100+rng.IntN(300)), call, ms))
		rid, rts := next()
		line(fmt.Sprintf(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"toolResult","toolCallId":"%s","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":%d}}`, rid, aid, rts, call, text(200+rng.IntN(3000)), ms))
		fid, fts := next()
		line(fmt.Sprintf(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":"%s"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1300,"output":120,"cacheRead":0,"cacheWrite":0,"totalTokens":1420,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":%d}}`, fid, rid, fts, text(100+rng.IntN(800)), ms))
		parent = `"` + fid + `"`
	}
	if pending != "" {
		emit(pending)
	}
	return st, bw.Flush()
}
