package transcript

import (
	"bytes"
	"encoding/json"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"io"
	"reflect"
	"testing"
)

// FuzzAnalyze feeds arbitrary bytes through the scanner, the analysis and the
// context builder: none may panic or hang, the context must be valid JSON and
// hold as many messages as the analysis says.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte(hdr + "\n" + e("a", "") + "\n" + e("b", "a") + "\n"))
	f.Add([]byte(hdr + "\n" + e("a", "c") + "\n" + e("c", "a") + "\n"))
	f.Add([]byte("\xef\xbb\xbf" + hdr + "\r\n{\"type\":\"compaction\",\"id\":\"k\",\"parentId\":null,\"summary\":\"s\",\"firstKeptEntryId\":\"k\"}\r\n"))
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"branch_summary","id":1,"parentId":1,"summary":"x"}` + "\n" + `[1,2]` + "\n" + `null`))
	f.Add([]byte("\x00\x00{}{}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Analyze(bytes.NewReader(data))
		if err != nil {
			return
		}
		ix, err := Scan(bytes.NewReader(data), ScanOptions{})
		if err != nil {
			t.Fatalf("Analyze accepted what Scan refused: %v", err)
		}
		ctx, err := BuildContext(ix, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
		if err != nil {
			t.Fatalf("context: %v", err)
		}
		out, err := json.Marshal(ctx)
		if err != nil || !json.Valid(out) {
			t.Fatalf("context is not JSON: %v", err)
		}
		if len(ctx.Messages) != s.Active.Messages {
			t.Fatalf("context has %d messages, analysis says %d", len(ctx.Messages), s.Active.Messages)
		}
	})
}

// FuzzRawEntryFromTape: decoding an entry off its line's tape (the entry,
// its message and its content blocks) gives exactly what decoding the text
// member by member gives, whatever the tape could not hold (its node budget,
// a text past its record limit).
// everyFieldLine sets every field a rawEntry has, and a message with blocks.
const everyFieldLine = `{"type":"x","id":"i","parentId":"p","timestamp":"t","version":3,"cwd":"/","message":{"role":"user","content":[{"type":"text","text":"t"}],"provider":"p","model":"m"},` +
	`"customType":"c","content":"c","display":true,"details":{},"summary":"s","fromId":"f","firstKeptEntryId":"k","firstKeptEntryIndex":1,"tokensBefore":2,` +
	`"thinkingLevel":"high","provider":"p","modelId":"m","targetId":"t","label":"l","name":"n","parentSession":"ps","data":{},"appendParentId":"a","appendMode":"m","reason":"r"}`

func FuzzRawEntryFromTape(f *testing.F) {
	f.Add([]byte(`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"x"}]}}`), uint8(40))
	f.Add([]byte(`{"type":"message","message":{"role":"assistant"},"message":{"content":[1,{"type":"toolCall","id":"c","name":"n","partialJson":"{"}]}}`), uint8(3))
	f.Add([]byte(`{"ty\u0070e":"message","message":{"r\u006fle":"user","content":"x"}}`), uint8(250))
	f.Add([]byte(`[{"type":"message"}]`), uint8(1))
	f.Fuzz(func(t *testing.T, line []byte, budget uint8) {
		tp := &jsjson.Tape{MaxDepth: 4, MaxNodes: int(budget%32) + 1}
		if budget >= 240 {
			tp.RecordLimit = 1
		}
		if !tp.Parse(line) {
			return
		}
		var got, want, reused rawEntry
		// an entry reused from a line that set every field decodes the same
		reused.decode([]byte(everyFieldLine))
		reused.contentBlocks()
		reusedObj := reused.fromTape(line, tp)
		gotObj := got.fromTape(line, tp)
		wantObj := want.decode(line)
		if reusedObj != gotObj || !reflect.DeepEqual(reused.messageMembers(), got.messageMembers()) ||
			!reflect.DeepEqual(reused.rawRare, got.rawRare) || reused.hasRare != got.hasRare ||
			len(reused.contentBlocks()) != len(got.contentBlocks()) {
			t.Fatalf("a reused entry reads %q differently: %+v, fresh %+v", line, reused, got)
		}
		for i, b := range reused.contentBlocks() {
			if !reflect.DeepEqual(b, got.contentBlocks()[i]) {
				t.Fatalf("a reused entry's block %d of %q: %+v, fresh %+v", i, line, b, got.contentBlocks()[i])
			}
		}
		if string(reused.Type) != string(got.Type) || string(reused.ID) != string(got.ID) || string(reused.ParentID) != string(got.ParentID) ||
			string(reused.Timestamp) != string(got.Timestamp) || string(reused.Version) != string(got.Version) ||
			string(reused.Cwd) != string(got.Cwd) || string(reused.Message) != string(got.Message) {
			t.Fatalf("a reused entry's fields of %q: %+v, fresh %+v", line, reused, got)
		}
		if gotObj != wantObj {
			t.Fatalf("object %v, text says %v on %q", gotObj, wantObj, line)
		}
		if !reflect.DeepEqual(got.messageMembers(), want.messageMembers()) {
			t.Fatalf("message %+v, text %+v on %q", *got.messageMembers(), *want.messageMembers(), line)
		}
		gb, wb := got.contentBlocks(), want.contentBlocks()
		if len(gb) != len(wb) || len(gb) > 0 && !reflect.DeepEqual(gb, wb) {
			t.Fatalf("blocks %+v, text %+v on %q", gb, wb, line)
		}
		got.msg, want.msg, got.blocks, want.blocks = rawMessage{}, rawMessage{}, nil, nil
		got.msgDecoded, want.msgDecoded, got.blocksDecoded, want.blocksDecoded = false, false, false, false
		got.contentNode, want.contentNode = 0, 0 // the tape's node, where there is one
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("entry %+v, text %+v on %q", got, want, line)
		}
	})
}
