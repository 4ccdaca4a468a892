package replay

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Alignment of stored and replayed messages for `oc replay --diff`.

// Diff operations.
const (
	DiffSame     = "same"
	DiffChanged  = "changed"
	DiffDropped  = "dropped"
	DiffInserted = "inserted"
)

// DiffRow pairs a stored message with its replayed form.
type DiffRow struct {
	Op       string  `json:"op"`
	Stored   Message `json:"stored"`
	Replayed Message `json:"replayed"`
}

func diffKey(m Message) string {
	ts, _ := json.Marshal(m.Get("timestamp"))
	return jsvalue.Role(m) + "\x00" + string(ts)
}

// AlignMessages lines up stored and replayed messages by role and
// timestamp (a longest common subsequence): rules rewrite messages but keep
// both; merged, dropped and synthetic messages show up unpaired.
func AlignMessages(stored, replayed []Message) []DiffRow {
	n, m := len(stored), len(replayed)
	a := make([]string, n)
	b := make([]string, m)
	for i, s := range stored {
		a[i] = diffKey(s)
	}
	for j, r := range replayed {
		b[j] = diffKey(r)
	}
	// LCS table over keys; long histories are aligned in linear passes.
	if n*m > 4_000_000 {
		return alignGreedy(stored, replayed, a, b)
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var rows []DiffRow
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			rows = append(rows, pair(stored[i], replayed[j]))
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			rows = append(rows, DiffRow{Op: DiffInserted, Replayed: replayed[j]})
			j++
		default:
			rows = append(rows, DiffRow{Op: DiffDropped, Stored: stored[i]})
			i++
		}
	}
	return rows
}

func pair(s, r Message) DiffRow {
	if reflect.DeepEqual(s, r) {
		return DiffRow{Op: DiffSame, Stored: s, Replayed: r}
	}
	return DiffRow{Op: DiffChanged, Stored: s, Replayed: r}
}

func alignGreedy(stored, replayed []Message, a, b []string) []DiffRow {
	var rows []DiffRow
	j := 0
	for i := range stored {
		k := j
		for k < len(b) && k < j+8 && b[k] != a[i] {
			k++
		}
		if k < len(b) && b[k] == a[i] {
			for ; j < k; j++ {
				rows = append(rows, DiffRow{Op: DiffInserted, Replayed: replayed[j]})
			}
			rows = append(rows, pair(stored[i], replayed[j]))
			j++
			continue
		}
		rows = append(rows, DiffRow{Op: DiffDropped, Stored: stored[i]})
	}
	for ; j < len(replayed); j++ {
		rows = append(rows, DiffRow{Op: DiffInserted, Replayed: replayed[j]})
	}
	return rows
}

// Brief is a one-line description of a message: role and content.
func Brief(m Message) string {
	if m == nil {
		return "(null)"
	}
	var parts []string
	switch c := m.Get("content").(type) {
	case string:
		parts = append(parts, fmt.Sprintf("%q", c))
	case []any:
		for _, b := range c {
			bm, ok := jsvalue.AsObject(b)
			if !ok {
				parts = append(parts, "?")
				continue
			}
			switch t := jsvalue.StringOrEmpty(bm, "type"); t {
			case "text":
				parts = append(parts, fmt.Sprintf("%q", jsvalue.StringOrEmpty(bm, "text")))
			case vocab.BlockToolCall, vocab.BlockToolUse, vocab.BlockFunctionCall:
				parts = append(parts, fmt.Sprintf("%s(%s)", jsvalue.StringOrEmpty(bm, "name"), jsvalue.StringOrEmpty(bm, "id")))
			case "thinking", "redacted_thinking":
				parts = append(parts, "[thinking]")
			default:
				parts = append(parts, "["+t+"]")
			}
		}
	}
	head := jsvalue.Role(m)
	if id := sanitize.ToolResultID(m); id != "" && head == vocab.RoleToolResult {
		head += " " + id
	}
	return strings.Join(append([]string{head + ":"}, parts...), " ")
}
