package sanitize

import (
	"regexp"
	"testing"
)

func TestHasSilentTokenMatchesFoldedRegexp(t *testing.T) {
	re := regexp.MustCompile(`(?i)NO_REPLY`)
	for _, s := range []string{
		"", "_", "NO_REPLY", "no_reply", "No_RePlY.", "x NO_REPLY", "NO_REPL", "O_REPLY", "_NO_REPLY_", "NO__REPLY",
		"a_b_c NO_REPLY", "NO_REPLÝ", "ＮＯ_REPLY", "N\u0301O_REPLY", "\xffNO_REPLY\xff", "NO_\xffREPLY", "__no_reply__", "no_replyno_reply",
	} {
		if got, want := hasSilentToken(s), re.MatchString(s); got != want {
			t.Errorf("hasSilentToken(%q) = %v, (?i)NO_REPLY matches: %v", s, got, want)
		}
	}
}

// Every text 9.6 reads as a silent reply holds the token; without it the
// pre-check answers false before the expressions run.
func TestSilentReplyPayloadTextNeedsToken(t *testing.T) {
	for _, s := range []string{
		"NO_REPLY", " no_reply ", `"NO_REPLY"`, `{"action":"NO_REPLY"}`, "<think>x</think>NO_REPLY", "thinking:\nNO_REPLY",
		"I will stay quiet. NO_REPLY", "hello", `"NO\u005fREPLY"`, "", "<think>x</think>",
	} {
		if IsSilentReplyPayloadText(s) && !hasSilentToken(s) {
			t.Errorf("%q: silent without the token", s)
		}
	}
	if !IsSilentReplyPayloadText("<think>x</think>NO_REPLY") || IsSilentReplyPayloadText("hello") {
		t.Fatal("pre-check changed the answer on plain cases")
	}
}
