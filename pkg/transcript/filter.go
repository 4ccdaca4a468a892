package transcript

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Filter selects transcripts by agent and by last change (the --agent and
// --since flags of inspect, repair and doctor). The zero Filter keeps all.
type Filter struct {
	Agent string    // keep only this agent's transcripts ("" keeps all)
	Since time.Time // keep only transcripts modified at or after this time
}

// IsZero reports whether the filter keeps everything.
func (f Filter) IsZero() bool { return f.Agent == "" && f.Since.IsZero() }

// Describe is the filter in words, for "no transcripts ..." messages.
func (f Filter) Describe() string {
	var parts []string
	if f.Agent != "" {
		parts = append(parts, "of agent "+f.Agent)
	}
	if !f.Since.IsZero() {
		parts = append(parts, "changed since "+f.Since.UTC().Format(time.RFC3339))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

// Keep reports whether the filter keeps a transcript; stdin ("-") is
// always kept. A file that cannot be stat'ed is kept (its reader reports
// the error).
func (f Filter) Keep(file File) bool {
	if file.Path == "-" {
		return true
	}
	if f.Agent != "" && file.Agent != f.Agent {
		return false
	}
	if !f.Since.IsZero() {
		st, err := os.Stat(file.Path)
		if err == nil && st.ModTime().Before(f.Since) {
			return false
		}
	}
	return true
}

// Apply returns the files the filter keeps.
func (f Filter) Apply(files []File) ([]File, error) {
	if f.IsZero() {
		return files, nil
	}
	out := files[:0:0]
	for _, file := range files {
		if f.Keep(file) {
			out = append(out, file)
		}
	}
	return out, nil
}

// ParseSince reads a --since value: a duration back from now ("90m", "36h",
// "7d", "2w") or a date or time ("2026-11-30", "2026-11-30T08:00:00Z",
// RFC 3339).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		if v, err := strconv.ParseFloat(s[:n-1], 64); err == nil && v >= 0 {
			unit := 24 * time.Hour
			if s[n-1] == 'w' {
				unit *= 7
			}
			return now.Add(-time.Duration(v * float64(unit))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, errors.New("want a duration back from now (like 24h or 7d), not a negative one")
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("want a duration (90m, 36h, 7d, 2w) or a date (2026-11-30, 2026-11-30T08:00:00Z)")
}
