package transcript

import (
	"os"
	"path/filepath"
)

// DefaultStateDir is where OpenClaw keeps its state when no --state-dir is
// given: $OPENCLAW_STATE_DIR, else ~/.openclaw, else (older installs) an
// existing ~/.clawdbot.
func DefaultStateDir(env func(string) string, home string) string {
	if env != nil {
		if d := env("OPENCLAW_STATE_DIR"); d != "" {
			return d
		}
	}
	primary := filepath.Join(home, ".openclaw")
	if _, err := os.Stat(primary); err == nil {
		return primary
	}
	for _, legacy := range []string{".clawdbot", ".moltbot", ".moldbot"} {
		p := filepath.Join(home, legacy)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return primary
}
