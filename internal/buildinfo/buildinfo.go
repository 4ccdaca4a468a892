// Package buildinfo reports the version oc was built as.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is stamped at build time:
//
//	go build -ldflags "-X github.com/openclaw-tools/oc/internal/buildinfo.version=v1.2.3"
//
// It is written only by the linker; code reads it through Version.
var version string

// Info describes the running binary.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
	Reference string `json:"reference"`
	// Follows are the OpenClaw releases whose rules oc follows, one per
	// storage era.
	Follows []Release `json:"follows"`
}

// Release is an OpenClaw release oc follows, and the storage era it rules.
type Release struct {
	OpenClaw string `json:"openclaw"`
	Era      string `json:"era"`
}

// JSONLRelease rules the JSONL era (transcripts, sessions.json, cron/jobs.json);
// SQLiteRelease the SQLite era (agent databases, state/openclaw.sqlite).
const (
	JSONLRelease  = "2026.5.6"
	SQLiteRelease = "2026.9.6"
)

// Followed lists the releases oc follows, the JSONL era's first.
func Followed() []Release {
	return []Release{{OpenClaw: JSONLRelease, Era: "jsonl"}, {OpenClaw: SQLiteRelease, Era: "sqlite"}}
}

// Read returns the build information: the stamped version, else the module
// version, else "dev"; the VCS revision when the toolchain recorded it.
func Read() Info {
	info := Info{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Follows: Followed(),
		Reference: "OpenClaw " + JSONLRelease + " (JSONL era) and " + SQLiteRelease + " (SQLite era)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	return info
}

// String is the one-line form printed by `oc version`.
func (i Info) String() string {
	s := "oc " + i.Version
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += " (" + c
		if i.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return fmt.Sprintf("%s %s %s; follows %s", s, i.GoVersion, i.Platform, i.Reference)
}
