package doctor_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/doctor"
)

// FixCommand, whatever the id and the route read from the state dir: every
// word between the subcommand and "--" is one --name=value option of the
// fix, the id is the one word after "--", and the values come back exactly
// as a command-line parser splits them (no value becomes an option, no id
// is lost).
func FuzzFixCommand(f *testing.F) {
	f.Add("c2a7e9f0-1b3d-4e5f-8a9b-0c1d2e3f4a5b", "agent:main:main", "discord", "channel:1", "acct", "42", true)
	f.Add("--help", "--dev", "--profile", "x --container evil", "-", "$(id)", true)
	f.Add("-", "=", "==", "--", "", "a=b", false)
	f.Fuzz(func(t *testing.T, id, key, channel, to, account, thread string, elsewhere bool) {
		v := doctor.Verdict{Class: doctor.InChat, Key: key}
		if elsewhere {
			v = doctor.Verdict{Class: doctor.Elsewhere, Key: key, Target: doctor.Route{Channel: channel, To: to, AccountID: account, ThreadID: thread}}
		}
		cmd := doctor.FixCommand(id, v)
		if !slices.Equal(cmd[:3], []string{"openclaw", "automations", "edit"}) || len(cmd) < 6 {
			t.Fatalf("command %q", cmd)
		}
		if cmd[len(cmd)-2] != "--" || cmd[len(cmd)-1] != id {
			t.Fatalf("the id is not the one word after the last --: %q", cmd)
		}
		got := map[string]string{}
		for _, a := range cmd[3 : len(cmd)-2] {
			name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if !strings.HasPrefix(a, "--") || !ok || got[name] != "" {
				t.Fatalf("%q is not one --name=value option: %q", a, cmd)
			}
			got[name] = value
		}
		want := map[string]string{"session": "current", "session-key": key}
		if elsewhere {
			want = map[string]string{"session": "isolated", "session-key": key}
			for name, value := range map[string]string{"channel": channel, "to": to, "account": account, "thread-id": thread} {
				if value != "" {
					want[name] = value
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("options %q, want %q", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("--%s=%q, want %q", k, got[k], v)
			}
		}
	})
}
