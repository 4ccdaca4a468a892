package doctor

import (
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/jsondoc"
)

// The sessions index of research §13, plus entries for the §8.3 rows it lacks.
const testSessions = `{
  "agent:main:main": {
    "sessionId": "0600a20d-bada-4a5f-9a69-298fdf3f5be2", "updatedAt": 1771250000000,
    "lastChannel": "telegram", "lastTo": "telegram:6445835734", "lastAccountId": "default",
    "deliveryContext": { "channel": "telegram", "to": "telegram:6445835734", "accountId": "default" }
  },
  "agent:main:telegram:direct:6445835734": {
    "sessionId": "8b0f3c1e-2d4a-4a7e-9c11-5f0e6d2a7b90", "updatedAt": 1771251000000, "chatType": "direct",
    "lastChannel": "telegram", "lastTo": "telegram:6445835734", "lastAccountId": "default",
    "deliveryContext": { "channel": "telegram", "to": "telegram:6445835734", "accountId": "default" }
  },
  "agent:main:slack:channel:c0aelhcgw4f": {
    "sessionId": "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "updatedAt": 1771252000000, "chatType": "channel",
    "lastChannel": "slack", "lastTo": "channel:C0AELHCGW4F", "lastAccountId": "default",
    "deliveryContext": { "channel": "slack", "to": "channel:C0AELHCGW4F", "accountId": "default" }
  },
  "agent:main:telegram:group:-1001234567890:topic:5": {
    "sessionId": "aa11bb22-cc33-4d44-8e55-ff6677889900", "updatedAt": 1771253000000, "chatType": "group",
    "lastChannel": "telegram", "lastTo": "telegram:-1001234567890", "lastThreadId": "5",
    "deliveryContext": { "channel": "telegram", "to": "telegram:-1001234567890", "accountId": "default", "threadId": "5" }
  },
  "agent:main:slack:channel:c0123:thread:1717.1": {
    "sessionId": "bb", "lastChannel": "slack", "lastTo": "channel:C0123", "lastThreadId": "1717.1"
  },
  "agent:main:slack:channel:c0999": {
    "sessionId": "cc", "lastChannel": "slack", "lastTo": "channel:c0999"
  },
  "agent:main:telegram:direct:777": {
    "sessionId": "dd", "lastChannel": "telegram", "lastTo": "777", "lastAccountId": "bot_a"
  }
}`

func testIndex(t *testing.T) SessionIndex {
	t.Helper()
	doc, _, err := jsondoc.Parse([]byte(testSessions))
	if err != nil {
		t.Fatal(err)
	}
	var ix SessionIndex
	ix.Add("main", doc)
	ix.Add("ops", nil)
	return ix
}

func job(t *testing.T, src string) *jsondoc.Value {
	t.Helper()
	v, _, err := jsondoc.Parse([]byte(src))
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return v
}

// One row per case of research §8.3 (with the contract's decisions), plus the
// preconditions of §8.2.
func TestClassifyEdgeCases(t *testing.T) {
	ix := testIndex(t)
	const dm = `"sessionTarget":"session:agent:main:telegram:direct:6445835734","payload":{"kind":"agentTurn","message":"m"}`
	cases := []struct {
		name   string
		job    string
		class  Classification
		reason Reason
		target string // expected Target.String(), "" = not checked
	}{
		{"no delivery, key has a route", `{` + dm + `}`, InChat, ReasonSameRoute, "telegram:6445835734"},
		{"announce only", `{` + dm + `,"delivery":{"mode":"announce"}}`, InChat, ReasonSameRoute, ""},
		{"last + explicit to of another chat", `{` + dm + `,"delivery":{"mode":"announce","channel":"last","to":"telegram:999"}}`, Elsewhere, ReasonRecipientDiffers, "telegram:999"},
		{"explicit channel = key's channel, no to", `{` + dm + `,"delivery":{"mode":"announce","channel":"telegram"}}`, InChat, ReasonSameRoute, "telegram:6445835734"},
		{"explicit channel differs", `{` + dm + `,"delivery":{"mode":"announce","channel":"discord","to":"channel:1475102142951067682"}}`, Elsewhere, ReasonChannelDiffers, "discord:channel:1475102142951067682"},
		{"same chat, provider prefix differs", `{` + dm + `,"delivery":{"channel":"telegram","to":"6445835734"}}`, InChat, ReasonSameRoute, ""},
		{"same chat, different topic", `{"sessionTarget":"session:agent:main:telegram:group:-1001234567890:topic:5","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"telegram","to":"-1001234567890:topic:7"}}`, Elsewhere, ReasonThreadDiffers, ""},
		{"same chat, same topic", `{"sessionTarget":"session:agent:main:telegram:group:-1001234567890:topic:5","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"telegram","to":"-1001234567890:topic:5"}}`, InChat, ReasonSameRoute, ""},
		{"same chat, job has no thread, key has one", `{"sessionTarget":"session:agent:main:slack:channel:c0123:thread:1717.1","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"slack","to":"channel:C0123"}}`, InChat, ReasonThreadUnspecified, ""},
		{"same chat, different account", `{"sessionTarget":"session:agent:main:telegram:direct:777","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"telegram","to":"777","accountId":"bot_b"}}`, Elsewhere, ReasonAccountDiffers, ""},
		{"case only differs, route from entry", `{"sessionTarget":"session:agent:main:slack:channel:c0999","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"slack","to":"channel:C0999"}}`, Undecidable, ReasonCaseOnly, ""},
		{"mode none", `{` + dm + `,"delivery":{"mode":"none"}}`, InChat, ReasonNoDelivery, ""},
		{"mode webhook", `{` + dm + `,"delivery":{"mode":"webhook","to":"https://example.com/h"}}`, Elsewhere, ReasonWebhook, "webhook:https://example.com/h"},
		{"agent mismatch", `{"agentId":"main","sessionTarget":"session:agent:ops:telegram:direct:6445835734","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"telegram","to":"6445835734"}}`, Undecidable, ReasonAgentMismatch, ""},
		{"named non-chat session, explicit slack", `{"sessionTarget":"session:project-alpha-daily","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"slack","to":"channel:C0AELHCGW4F"}}`, Elsewhere, ReasonNamedNoChatRoute, "slack:channel:C0AELHCGW4F"},
		{"named non-chat session, implicit (main's chat)", `{"sessionTarget":"session:project-alpha-daily","payload":{"kind":"agentTurn"}}`, Elsewhere, ReasonNamedNoChatRoute, "telegram:6445835734"},
		{"main key, implicit delivery", `{"sessionTarget":"session:agent:main:main","payload":{"kind":"agentTurn"}}`, InChat, ReasonSameRoute, ""},
		{"main key without entry", `{"sessionTarget":"session:agent:other:main","payload":{"kind":"agentTurn"}}`, InChat, ReasonMainSession, ""},
		{"key entry missing, implicit", `{"sessionTarget":"session:agent:main:telegram:direct:424242","payload":{"kind":"agentTurn"}}`, Undecidable, ReasonKeyRouteUnkown, ""},
		{"key entry missing, explicit same channel", `{"sessionTarget":"session:agent:main:telegram:direct:424242","payload":{"kind":"agentTurn"},"delivery":{"channel":"telegram","to":"424242"}}`, Undecidable, ReasonKeyRouteUnkown, ""},
		{"key entry missing, explicit other channel", `{"sessionTarget":"session:agent:main:telegram:direct:424242","payload":{"kind":"agentTurn"},"delivery":{"channel":"discord","to":"channel:1"}}`, Elsewhere, ReasonChannelDiffers, ""},
		{"systemEvent payload", `{"sessionTarget":"session:agent:main:main","payload":{"kind":"systemEvent","text":"x"}}`, Undecidable, ReasonInvalidPayload, ""},
		{"empty key", `{"sessionTarget":"session:  ","payload":{"kind":"agentTurn"}}`, Undecidable, ReasonInvalidKey, ""},
		{"key with a slash", `{"sessionTarget":"session:a/b","payload":{"kind":"agentTurn"}}`, Undecidable, ReasonInvalidKey, ""},
		{"legacy payload provider", `{"sessionTarget":"session:agent:main:telegram:direct:6445835734","payload":{"kind":"agentturn","message":"m","deliver":true,"provider":"telegram"}}`, InChat, ReasonSameRoute, ""},
		{"legacy top-level delivery", `{"jobId":"w","sessionTarget":"Session:agent:main:telegram:direct:6445835734","message":"m","deliver":true,"channel":"discord","to":"channel:1"}`, Elsewhere, ReasonChannelDiffers, ""},
		{"legacy deliver:false", `{"sessionTarget":"session:agent:main:telegram:direct:6445835734","payload":{"kind":"agentTurn","deliver":false,"channel":"discord"}}`, InChat, ReasonNoDelivery, ""},
		{"channel case differs", `{"sessionTarget":"session:agent:main:slack:channel:c0aelhcgw4f","payload":{"kind":"agentTurn"},"delivery":{"mode":"announce","channel":"Slack","to":"channel:C0AELHCGW4F"}}`, InChat, ReasonSameRoute, ""},
		{"explicit threadId number", `{"sessionTarget":"session:agent:main:telegram:group:-1001234567890:topic:5","payload":{"kind":"agentTurn"},"delivery":{"channel":"telegram","to":"-1001234567890","threadId":7}}`, Elsewhere, ReasonThreadDiffers, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(job(t, c.job), ix, Config{})
			if v.Class != c.class || v.Reason != c.reason {
				t.Fatalf("got %s/%s, want %s/%s (target %s, key route %s)", v.Class, v.Reason, c.class, c.reason, v.Target, v.KeyRoute)
			}
			if c.target != "" && v.Target.String() != c.target && !strings.HasPrefix(v.Target.String(), c.target+" ") {
				t.Errorf("target %q, want %q", v.Target.String(), c.target)
			}
		})
	}
}

func TestClassifyIgnoresOtherTargets(t *testing.T) {
	ix := testIndex(t)
	for _, target := range []string{"main", "isolated", "current", "sessions:x", ""} {
		v := Classify(job(t, `{"sessionTarget":"`+target+`","payload":{"kind":"agentTurn"}}`), ix, Config{})
		if v.Class != "" {
			t.Errorf("%q classified %s", target, v.Class)
		}
	}
	if v := Classify(job(t, `{"payload":{"kind":"agentTurn"}}`), ix, Config{}); v.Class != "" {
		t.Errorf("missing target classified %s", v.Class)
	}
}

func TestClassifyMarksDisabledAndInherited(t *testing.T) {
	ix := testIndex(t)
	v := Classify(job(t, `{"enabled":false,"sessionTarget":"session:agent:main:telegram:group:-1001234567890:topic:5","payload":{"kind":"agentTurn"},"delivery":{"channel":"telegram","to":"telegram:-1001234567890:topic:7"}}`), ix, Config{})
	if !v.Disabled || v.Class != Elsewhere {
		t.Fatalf("%+v", v)
	}
	if strings.Join(v.Inherited, ",") != "accountId" || v.Target.AccountID != "default" || v.Target.ThreadID != "7" {
		t.Errorf("inherited %v target %+v", v.Inherited, v.Target)
	}
}

func TestClassifyUsesConfiguredMainKeyAndDefaultAgent(t *testing.T) {
	doc, _, _ := jsondoc.Parse([]byte(`{"agent:home:lobby":{"lastChannel":"telegram","lastTo":"1"}}`))
	var ix SessionIndex
	ix.Add("home", doc)
	v := Classify(job(t, `{"sessionTarget":"session:lobby","payload":{"kind":"agentTurn"}}`), ix, Config{DefaultAgentID: "home", MainKey: "Lobby"})
	if v.Class != InChat || v.KeyAgent != "home" {
		t.Fatalf("%+v", v)
	}
}

// FuzzClassify: any job document classifies without panicking, and:
// Classify is pure (same verdict twice, the job unchanged); a job is
// classified exactly when its sessionTarget is a string beginning with
// "session:" (checked here on targets without leading white space, where no
// trimming rule matters); a classified job has one of the three classes and
// a reason; an ELSEWHERE job, once migrated, is isolated and no longer a
// session:<key> job (a second doctor run leaves it alone).
func FuzzClassify(f *testing.F) {
	f.Add([]byte(`{"sessionTarget":"session:agent:main:telegram:direct:6445835734","payload":{"kind":"agentTurn"},"delivery":{"channel":"telegram","to":"tg:group:-1:topic:5","threadId":3}}`))
	f.Add([]byte(`{"sessionTarget":"Session: x:thread:y:sender:z","message":"m","deliver":false}`))
	f.Add([]byte(`{"sessionTarget":"session:agent:ops:main","agentId":"OPS!","payload":{"kind":"AGENTTURN"},"sourceConversation":{"sessionKey":"agent:ops:slack:channel:c1"}}`))
	f.Add([]byte(`{"sessionTarget":"session:agent:main:discord:channel:1","delivery":{"mode":"webhook","to":"https://x"}}`))
	f.Add([]byte(`{"sessionTarget":"isolated","payload":{"kind":"agentTurn"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _, err := jsondoc.Parse(data)
		if err != nil || v.Kind != jsondoc.Object {
			return
		}
		doc, _, _ := jsondoc.Parse([]byte(testSessions))
		var ix SessionIndex
		ix.Add("main", doc)
		orig := v.Clone()
		got := Classify(v, ix, Config{})
		if !jsondoc.Equal(v, orig) {
			t.Fatal("Classify changed the job")
		}
		if again := Classify(v, ix, Config{}); !reflect.DeepEqual(got, again) {
			t.Fatalf("two verdicts: %+v, %+v", got, again)
		}
		if st := v.Get("sessionTarget"); st != nil && st.Kind == jsondoc.String && len(st.Str) > 0 && st.Str[0] > ' ' && st.Str[0] < 0x80 {
			isSession := len(st.Str) >= 8 && strings.EqualFold(st.Str[:8], "session:")
			if isSession != (got.Class != "") {
				t.Fatalf("sessionTarget %q: class %q", st.Str, got.Class)
			}
		} else if st == nil || st.Kind != jsondoc.String {
			if got.Class != "" {
				t.Fatalf("sessionTarget %v (not a string): class %q", st, got.Class)
			}
		}
		switch got.Class {
		case "":
		case InChat, Elsewhere, Undecidable:
			if got.Reason == "" {
				t.Fatalf("%s without reason", got.Class)
			}
		default:
			t.Fatalf("unknown class %q", got.Class)
		}
		if got.Class == Elsewhere {
			c := v.Clone()
			migrateJob(c, got, nil, 1)
			if s, _ := c.StringOf("sessionTarget"); s != "isolated" {
				t.Fatal("migration did not set isolated")
			}
			if again := Classify(c, ix, Config{}); again.Class != "" {
				t.Fatalf("the migrated job classifies again as %s", again.Class)
			}
		}
	})
}
