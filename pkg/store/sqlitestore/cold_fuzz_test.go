package sqlitestore

import (
	"testing"
)

// FuzzDecodeColdRecords: any decompressed envelope either is refused with a
// reason or gives exactly the row's event count, in strictly increasing seq
// order, ending at last_seq, with raw_bytes matching; it never panics.
func FuzzDecodeColdRecords(f *testing.F) {
	f.Add([]byte(`{"kind":"header","version":1,"sessionId":"s","generation":"g"}
{"kind":"event","row":{"seq":0,"event_json":"{\"type\":\"session\"}","created_at":1}}
{"kind":"event","row":{"seq":1,"event_json":"{}","created_at":2}}
{"kind":"active","row":{"active_position":0,"event_seq":1,"message_position":null,"context_eligible":1}}
{"kind":"index","row":{"indexed_seq":1,"leaf_event_id":null,"needs_rebuild":0,"active_event_count":1,"active_message_count":0,"updated_at":3}}
{"kind":"fts","row":{"text":"x","message_id":null,"role":"user","timestamp":"t"}}
`), 2, int64(1), int64(21))
	f.Add([]byte(`{"kind":"header","version":1,"sessionId":"s","generation":"g"}`+"\n"+`{"kind":"event","row":{"seq":1.0,"event_json":"\ud800","created_at":0}}`), 1, int64(1), int64(3))
	f.Fuzz(func(t *testing.T, plain []byte, count int, lastSeq, rawBytes int64) {
		c := ColdArchive{SessionID: "s", Generation: "g", EventCount: count, LastSeq: lastSeq, RawBytes: rawBytes}
		ct, reason := decodeColdRecords(plain, c)
		if reason != "" {
			if ct != nil {
				t.Fatalf("refused (%s) but returned a transcript", reason)
			}
			return
		}
		if len(ct.events) != count || count < 1 {
			t.Fatalf("accepted %d events, the row says %d", len(ct.events), count)
		}
		if ct.events[len(ct.events)-1].Seq != lastSeq {
			t.Fatalf("last seq %d, row %d", ct.events[len(ct.events)-1].Seq, lastSeq)
		}
		var sum int64
		for i, ev := range ct.events {
			if i > 0 && ev.Seq <= ct.events[i-1].Seq {
				t.Fatalf("seq %d after %d", ev.Seq, ct.events[i-1].Seq)
			}
			sum += int64(len(ev.JSON))
		}
		// A lone surrogate counts 3 bytes (Buffer.byteLength) and is stored
		// as U+FFFD, also 3 bytes: the restored rows' size is raw_bytes.
		if sum+int64(count)-1 != rawBytes {
			t.Fatalf("raw bytes %d, row %d", sum+int64(count)-1, rawBytes)
		}
	})
}
