package sanitize96

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// modelSnapshotsFullDecode is ModelSnapshotsOnBranch as it was before the
// scanner's pre-filter: every entry fully decoded.
func modelSnapshotsFullDecode(entries [][]byte) []sanitize.ModelSnapshot {
	var out []sanitize.ModelSnapshot
	for _, e := range entries {
		var head struct {
			Type       any             `json:"type"`
			CustomType any             `json:"customType"`
			Data       json.RawMessage `json:"data"`
		}
		if json.Unmarshal(e, &head) != nil || head.Type != "custom" || head.CustomType != "model-snapshot" {
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
	return out
}

var snapshotEntrySeeds = []string{
	`{"type":"custom","customType":"model-snapshot","data":{"provider":"anthropic","modelApi":"anthropic-messages","modelId":"m","timestamp":5}}`,
	`  {"type" : "custom" , "customType":"model-snapshot","data":{"provider":"p"}}  `,
	`{"type":"message","customType":"model-snapshot","data":{"provider":"p"}}`,
	`{"type":"custom","customType":"model-snapshot","data":{"provider":"p"},"type":"message"}`,
	`{"type":"message","customType":"model-snapshot","data":{"provider":"p"},"type":"custom"}`,
	`{"type":"message","customType":"model-snapshot","data":{"provider":"p"},"TYPE":"custom"}`,
	`{"Type":"custom","customType":"model-snapshot","data":{"provider":"p"}}`,
	`{"type":"custom","customType":"model-snapshot","data":{"provider":"p"},"tYpe":null}`,
	`{"type":"cust\u006fm","customType":"model-snapshot","data":{"provider":"p"}}`,
	`{"typ\u0065":"custom","customType":"model-snapshot","data":{"provider":"p"}}`,
	`{"type":"message","typ\u0065":"custom","customType":"model-snapshot","data":{"provider":"p"}}`,
	`{"type":"custom","customType":"model-snapshot","data":{"provider":"p"}`,
	`{"type":"message","customType":"model-snapshot","data":{"provider":"p"}`,
	`{"type":"custom","customType":"model-snapshot","data":{"provider":"p"}} x`,
	`{"type":"custom","customType":"model-snapshot","data":[1]}`,
	`{"type":"custom","customType":"model-snapshot","data":null}`,
	`{"type":1,"customType":"model-snapshot","data":{}}`,
	`{"type":["custom"],"customType":"model-snapshot","data":{}}`,
	`{"customType":"model-snapshot","data":{"provider":"p"}}`,
	`{"ty\u00e9":"custom","type":"custom","customType":"model-snapshot","data":{"provider":"p"}}`,
	`["custom"]`, `null`, `"custom"`, `{}`, ``, `{`, `{"type":"custom"`,
	`{"type":"message","message":{"role":"user","content":"{\"type\":\"custom\"}"}}`,
}

func TestModelSnapshotsOnBranchMatchesFullDecode(t *testing.T) {
	var entries [][]byte
	for _, s := range snapshotEntrySeeds {
		entries = append(entries, []byte(s))
	}
	got, err := ModelSnapshotsOnBranch(entries)
	if err != nil {
		t.Fatal(err)
	}
	want := modelSnapshotsFullDecode(entries)
	if len(want) < 5 {
		t.Fatalf("reference found %d snapshots; the seeds should hold at least 5", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, s := range snapshotEntrySeeds {
		one := [][]byte{[]byte(s)}
		got, _ := ModelSnapshotsOnBranch(one)
		if want := modelSnapshotsFullDecode(one); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", s, got, want)
		}
	}
}

func FuzzModelSnapshotsOnBranch(f *testing.F) {
	for _, s := range snapshotEntrySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		one := [][]byte{[]byte(s)}
		got, err := ModelSnapshotsOnBranch(one)
		if err != nil {
			t.Fatal(err)
		}
		if want := modelSnapshotsFullDecode(one); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %+v, want %+v", s, got, want)
		}
	})
}
