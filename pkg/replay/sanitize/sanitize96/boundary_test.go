package sanitize96

import (
	"testing"
	"time"
)

// TestZonedTimestampPrefix96: the user-turn stamp in several zones, as
// Node 24's Intl (en-US, timeZoneName short) writes it for 2026.9.6's
// formatZonedTimestamp (expected values taken from the oracle's node).
func TestZonedTimestampPrefix96(t *testing.T) {
	cases := []struct {
		tz   string
		ms   float64
		want string
	}{
		{"UTC", 1769760420000, "[Fri 2026-01-30 08:07 UTC] "},
		{"UTC", 1751760420000, "[Sun 2025-07-06 00:07 UTC] "},
		{"Asia/Kolkata", 1769760420000, "[Fri 2026-01-30 13:37 GMT+5:30] "},
		{"Asia/Kolkata", 1751760420000, "[Sun 2025-07-06 05:37 GMT+5:30] "},
		{"America/New_York", 1769760420000, "[Fri 2026-01-30 03:07 EST] "},
		{"America/New_York", 1751760420000, "[Sat 2025-07-05 20:07 EDT] "},
		{"Europe/London", 1769760420000, "[Fri 2026-01-30 08:07 GMT] "},
		{"Europe/London", 1751760420000, "[Sun 2025-07-06 01:07 GMT+1] "},
		{"Asia/Shanghai", 1769760420000, "[Fri 2026-01-30 16:07 GMT+8] "},
		{"Asia/Shanghai", 1751760420000, "[Sun 2025-07-06 08:07 GMT+8] "},
		{"America/Chicago", 1769760420000, "[Fri 2026-01-30 02:07 CST] "},
		{"America/Chicago", 1751760420000, "[Sat 2025-07-05 19:07 CDT] "},
		{"Pacific/Chatham", 1769760420000, "[Fri 2026-01-30 21:52 GMT+13:45] "},
		{"Pacific/Chatham", 1751760420000, "[Sun 2025-07-06 12:52 GMT+12:45] "},
		{"America/St_Johns", 1769760420000, "[Fri 2026-01-30 04:37 GMT-3:30] "},
		{"America/St_Johns", 1751760420000, "[Sat 2025-07-05 21:37 GMT-2:30] "},
		{"Etc/GMT", 1769760420000, "[Fri 2026-01-30 08:07 UTC] "},
		{"America/Adak", 1769760420000, "[Thu 2026-01-29 22:07 HAST] "},
		{"America/Adak", 1751760420000, "[Sat 2025-07-05 15:07 HADT] "},
		{"Africa/Abidjan", 1769760420000, "[Fri 2026-01-30 08:07 GMT] "},
	}
	for _, c := range cases {
		loc, err := time.LoadLocation(c.tz)
		if err != nil {
			t.Skipf("no tzdata for %s: %v", c.tz, err)
		}
		got, ok := zonedTimestampPrefix(c.ms, loc)
		if !ok || got != c.want {
			t.Errorf("%s %v: got %q (ok %v), want %q", c.tz, c.ms, got, ok, c.want)
		}
	}
}
