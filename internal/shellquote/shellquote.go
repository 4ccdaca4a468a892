// Package shellquote quotes words for a POSIX shell, for the commands oc
// prints for a user to copy and run.
package shellquote

import "strings"

// Quote returns s as one shell word: as it is when no character of it is
// special to a POSIX shell, else in single quotes.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
