package sanitize96

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// testdata/replay/text96/answers.json holds OpenClaw 2026.9.6's own answers
// (make-text96.mjs runs its dist functions) for the text helpers of the 9.6
// replay steps.
func TestText96HelpersMatchOpenClaw(t *testing.T) {
	data, err := os.ReadFile("../../../../testdata/replay/text96/answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Fn   string            `json:"fn"`
		Args []json.RawMessage `json:"args"`
		Out  any               `json:"out"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, c := range cases {
		var text string
		if err := json.Unmarshal(c.Args[0], &text); err != nil {
			t.Fatal(err)
		}
		var got any
		switch c.Fn {
		case "stripInboundMetadata":
			got = stripInboundMetadata(text)
		case "stripInternalRuntimeContext":
			got = stripInternalRuntimeContext(text)
		case "isSilentReplyPayloadText":
			got = sanitize.IsSilentReplyPayloadText(text)
		case "annotateInterSessionPromptText":
			p, err := jsvalue.Parse(string(c.Args[1]))
			if err != nil {
				t.Fatal(err)
			}
			prov, ok := sanitize.InterSessionProvenance(jsvalue.NewObject("role", "user", "provenance", p))
			if !ok {
				t.Fatalf("%s: provenance not recognised", c.Args[1])
			}
			got = sanitize.AnnotateInterSessionText(text, prov, stripInterSessionPromptPrefix)
		default:
			t.Fatalf("unknown function %s", c.Fn)
		}
		if got != c.Out {
			t.Errorf("%s(%q) = %#v, OpenClaw 2026.9.6: %#v", c.Fn, text, got, c.Out)
			continue
		}
		compared++
	}
	if len(cases) < 30 {
		t.Fatalf("only %d cases", len(cases))
	}
	t.Logf("%d of %d text helper answers equal", compared, len(cases))
}
