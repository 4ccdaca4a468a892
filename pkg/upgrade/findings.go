package upgrade

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// LossText describes what the import would leave behind of s, for doctor's
// upgrade-loss finding: entries and messages left behind, from which line,
// and the last message that would make it. Text from the file (ids, roles)
// is stripped of control characters.
func LossText(s Session) string {
	r := s.Result
	if s.Outcome == Deferred {
		return fmt.Sprintf("the upgrade to OpenClaw 2026.8+ would move %s to the import archive without importing it (%s): %d %s (%d %s) would stay behind",
			printable(filepath.Base(s.Path), 80), s.Reason, len(r.LeftBehind), plural(len(r.LeftBehind), "entry", "entries"),
			r.LeftBehindMessages, plural(r.LeftBehindMessages, "message", "messages"))
	}
	var b strings.Builder
	why := "does not parse"
	if r.StopReason == StopUTF8 {
		why = "sits in a 64 KiB block with invalid UTF-8"
	}
	reach := fmt.Sprintf("only up to line %d", r.StopLine-1)
	if r.Events == 0 {
		reach = "nothing"
	}
	fmt.Fprintf(&b, "the upgrade to OpenClaw 2026.8+ would import %s of %s (line %d %s): %d %s (%d %s) from line %d on would stay behind in the import archive",
		reach, printable(s.SessionKey, 80), r.StopLine, why,
		len(r.LeftBehind), plural(len(r.LeftBehind), "entry", "entries"),
		r.LeftBehindMessages, plural(r.LeftBehindMessages, "message", "messages"), r.LeftBehind[0])
	if r.LastMessage != nil {
		fmt.Fprintf(&b, "; the last message imported would be line %d", r.LastMessage.Line)
		if r.LastMessage.Role != "" {
			fmt.Fprintf(&b, " (%s", printable(r.LastMessage.Role, 20))
			if r.LastMessage.ID != "" {
				fmt.Fprintf(&b, " %s", printable(r.LastMessage.ID, 40))
			}
			b.WriteString(")")
		}
	} else {
		b.WriteString("; no message would be imported")
	}
	return b.String()
}

// printable drops control and other non-printing characters and shortens s.
func printable(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}
