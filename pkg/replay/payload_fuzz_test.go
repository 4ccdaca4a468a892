package replay

import (
	"encoding/json"
	"testing"
)

// FuzzBuildPayload: any JSON message list, every API family: BuildPayload
// returns a body or an error, never panics, and the body is valid JSON.
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
		msgs, err := DecodeMessages(list)
		if err != nil {
			return
		}
		keys := NewKeyOrder()
		_ = keys.RecordMessages(list, msgs)
		for _, api := range APIs {
			p, err := BuildPayload(PayloadInput{Provider: "p", API: api, Model: "m", Messages: msgs, KeyOrder: keys, SystemPrompt: "s"})
			if err != nil {
				continue
			}
			b, err := p.AppendJSON(nil)
			if err != nil {
				t.Fatalf("%s: encode: %v", api, err)
			}
			if !json.Valid(b) {
				t.Fatalf("%s: invalid JSON %s", api, b)
			}
		}
	})
}
