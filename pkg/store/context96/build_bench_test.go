package context96

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkBuild20MiB: the 9.6 context of a 20 MiB session on one branch
// (user turns, assistant turns with thinking and a tool call, results).
func BenchmarkBuild20MiB(b *testing.B) {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	rows := [][]byte{[]byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`)}
	size, parent := 0, "null"
	for n := 1; size < 20<<20; n++ {
		var msg string
		switch n % 3 {
		case 1:
			msg = fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}],"timestamp":%d}`, text, n)
		case 2:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":%q},{"type":"text","text":%q},{"type":"toolCall","id":"t%d","name":"exec","arguments":{}}],"provider":"anthropic","model":"m","timestamp":%d}`, text, text, n, n)
		default:
			msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"t%d","content":[{"type":"text","text":%q}],"timestamp":%d}`, n-1, text, n)
		}
		row := fmt.Sprintf(`{"type":"message","id":"e%d","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":%s}`, n, parent, msg)
		parent = fmt.Sprintf(`"e%d"`, n)
		rows = append(rows, []byte(row))
		size += len(row)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Build(rows)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Context.Messages) != len(rows)-1 {
			b.Fatalf("%d messages of %d rows", len(s.Context.Messages), len(rows))
		}
	}
}
