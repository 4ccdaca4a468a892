package transcript

import (
	"bytes"
	"encoding/json"
	"io"
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
