package sanitize96

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// ModelSnapshotsOnBranch reads the "model-snapshot" custom entries of a
// session's active branch (its entries as JSON lines, in order): what 9.6's
// readModelSnapshotState reads through sessionManager.getBranch(). Entries
// that are not model snapshots are skipped; a snapshot whose data is not an
// object is skipped, as 9.6 skips it.
func ModelSnapshotsOnBranch(entries [][]byte) ([]sanitize.ModelSnapshot, error) {
	var out []sanitize.ModelSnapshot
	for _, e := range entries {
		if notCustomEntry(e) {
			continue
		}
		var head struct {
			Type       any             `json:"type"`
			CustomType any             `json:"customType"`
			Data       json.RawMessage `json:"data"`
		}
		if json.Unmarshal(e, &head) != nil {
			continue
		}
		if head.Type != "custom" || head.CustomType != "model-snapshot" {
			continue
		}
		var data map[string]any
		if json.Unmarshal(head.Data, &data) != nil || data == nil {
			continue
		}
		snap := sanitize.ModelSnapshot{Provider: snapshotField(data["provider"]), ModelAPI: snapshotField(data["modelApi"]), ModelID: snapshotField(data["modelId"])}
		if ts, ok := data["timestamp"].(float64); ok && !math.IsInf(ts, 0) && !math.IsNaN(ts) {
			snap.Timestamp = &ts
		}
		out = append(out, snap)
	}
	return out, nil
}

// notCustomEntry reports, without decoding the entry, that the full decode
// below would not read it as a "custom" entry: either it is no valid JSON
// (the decode fails) or the last member whose key matches "type" (as
// encoding/json matches it: ASCII case-folded; the last one wins) holds
// something other than the plain string "custom". Anything unsure (escapes
// or non-ASCII bytes in a key, an escaped type string, not an object) says
// false and takes the full decode. On valid JSON the scanner finds exact
// member boundaries; on damaged JSON whatever it reads is skipped, as the
// failed decode skips it.
func notCustomEntry(e []byte) bool {
	var typ []byte
	unsure := false
	_, complete := jsonl.EachMember(e, 0, func(m jsonl.Member) bool {
		for _, c := range m.Key {
			if c == '\\' || c >= utf8.RuneSelf {
				unsure = true
				return false
			}
		}
		if len(m.Key) == len("type") && bytes.EqualFold(m.Key, []byte("type")) {
			typ = e[m.Start:m.End]
		}
		return true
	})
	if unsure {
		return false
	}
	if !complete {
		// not an object, or damaged: JSON that is not an object decodes
		// without members (no error for a few shapes), so decode it
		return false
	}
	if typ == nil {
		return true
	}
	if typ[0] == '"' && bytes.IndexByte(typ, '\\') >= 0 {
		return false
	}
	return string(typ) != `"custom"`
}

// snapshotField is a snapshot member as isSameModelSnapshot compares it
// (`value ?? ""`); a value that is not a string is shown in Go syntax so
// that it never equals a route.
func snapshotField(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return fmt.Sprintf("\x00%v", v)
}
