package replay

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// FuzzBuildPayload: any JSON message list, every API family: BuildPayload
// returns a body or an error and never panics; it leaves its input alone
// (cmd/replay builds several bodies from one list); the body is the same
// bytes every time (no map-order dependence), valid UTF-8 JSON, compact as
// JSON.stringify writes it, and a JSON object.
func FuzzBuildPayload(f *testing.F) {
	f.Add(`[{"role":"user","content":"hi"},{"role":"assistant","provider":"x","stopReason":"stop","content":[{"type":"thinking","thinking":"t","thinkingSignature":"{\"a\":1}"},{"type":"toolCall","id":"a|b","name":"f","arguments":{"b":1,"a":2}}]},{"role":"toolResult","toolCallId":"a|b","content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}]`)
	f.Add(`[{"role":"assistant","content":[{"type":"text","text":5}]},{"role":"custom","customType":"openclaw.runtime-context"}]`)
	f.Add(`[{"role":"bashExecution","command":"ls","exitCode":1},{"role":"user","content":[null]}]`)
	f.Add(`[{"role":"toolResult","content":"x"},{"role":"user","content":[{"type":"text"}]}]`)
	f.Fuzz(func(t *testing.T, raw string) {
		var list []json.RawMessage
		if json.Unmarshal([]byte(raw), &list) != nil {
			return
		}
		msgs, err := jsvalue.DecodeMessages(list, false)
		if err != nil {
			return
		}
		before, err := jsvalue.DecodeMessages(list, false) // an independent copy of the input
		if err != nil {
			t.Fatal(err)
		}
		for _, api := range APIs() {
			in := PayloadInput{Provider: "p", API: api, Model: "m", Messages: msgs, SystemPrompt: "s"}
			p, err := BuildPayload(in)
			if !reflect.DeepEqual(msgs, before) {
				t.Fatalf("%s: BuildPayload changed its input messages", api)
			}
			if err != nil {
				if _, err2 := BuildPayload(in); err2 == nil || err2.Error() != err.Error() {
					t.Fatalf("%s: error %v, then %v", api, err, err2)
				}
				continue
			}
			b, err := p.AppendJSON(nil)
			if err != nil {
				t.Fatalf("%s: encode: %v", api, err)
			}
			if !json.Valid(b) || !utf8.Valid(b) {
				t.Fatalf("%s: invalid JSON %s", api, b)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, b); err != nil || !bytes.Equal(compact.Bytes(), b) {
				t.Fatalf("%s: body is not compact: %s", api, b)
			}
			if b[0] != '{' {
				t.Fatalf("%s: body is not an object: %.80s", api, b)
			}
			p2, err := BuildPayload(in)
			if err != nil {
				t.Fatalf("%s: second build: %v", api, err)
			}
			b2, err := p2.AppendJSON(nil)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("%s: two builds differ:\n%s\n%s", api, b, b2)
			}
		}
	})
}
