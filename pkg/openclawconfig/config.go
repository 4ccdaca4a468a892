// Package openclawconfig finds and reads the OpenClaw gateway's own config
// file (openclaw.json, JSON5; clawdbot.json on old installs) the way
// OpenClaw does. Every command that needs a config value reads it here:
// doctor (agents, session and cron store locations, the gateway lock's
// name) and replay (the image size limit).
package openclawconfig

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/jsondoc"
)

// EnvPath names the environment variable that points OpenClaw at a config
// file outside the state dir.
const EnvPath = "OPENCLAW_CONFIG_PATH"

// MaxBytes bounds what is read of a config file (a config is a few KiB).
const MaxBytes = 16 << 20

// Candidates are the files OpenClaw would take its config from, in order:
// $OPENCLAW_CONFIG_PATH, then openclaw.json and the legacy clawdbot.json in
// the state dir. env may be nil (no environment).
func Candidates(stateDir string, env func(string) string) []string {
	var out []string
	if env != nil {
		if p := strings.TrimSpace(env(EnvPath)); p != "" {
			out = append(out, p)
		}
	}
	return append(out, filepath.Join(stateDir, "openclaw.json"), filepath.Join(stateDir, "clawdbot.json"))
}

// Path is the config file OpenClaw uses (and hashes into its gateway
// lock's name): $OPENCLAW_CONFIG_PATH, else the first of openclaw.json and
// clawdbot.json that exists, else openclaw.json.
func Path(stateDir string, env func(string) string) string {
	c := Candidates(stateDir, env)
	if c[0] != filepath.Join(stateDir, "openclaw.json") {
		return c[0]
	}
	for _, p := range c {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return c[0]
}

// Reader reads and parses one config file; it returns an error wrapping
// fs.ErrNotExist when the file is absent.
type Reader func(path string) (*jsondoc.Value, error)

// Config is a config file as read, or the empty config when there is none.
type Config struct {
	Path string         // the file read; "" when there is none
	Root *jsondoc.Value // its document; nil when there is none
}

// Load reads the first candidate that exists (Candidates). No file is not
// an error: the result is the empty config, whose values are OpenClaw's
// defaults. read may be nil (ReadFile).
func Load(stateDir string, env func(string) string, read Reader) (*Config, error) {
	if read == nil {
		read = ReadFile
	}
	for _, p := range Candidates(stateDir, env) {
		root, err := read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Config{Path: p, Root: root}, nil
	}
	return &Config{}, nil
}

// ReadFile reads a config file: a regular file (a FIFO or device is never
// opened blocking) of at most MaxBytes, parsed as JSON5. Errors name the
// file, and the line and column of a syntax error.
func ReadFile(path string) (*jsondoc.Value, error) {
	f, _, err := durable.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(raw) > MaxBytes {
		return nil, fmt.Errorf("%s: more than %d bytes: not an OpenClaw config", path, MaxBytes)
	}
	v, _, err := jsondoc.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return v, nil
}

// String is the string at a path of object keys ("" and false when absent
// or not a string).
func (c *Config) String(keys ...string) (string, bool) {
	v := c.lookup(keys)
	if v == nil || v.Kind != jsondoc.String {
		return "", false
	}
	return v.Str, true
}

// Get is the value at a path of object keys (nil when absent).
func (c *Config) Get(keys ...string) *jsondoc.Value { return c.lookup(keys) }

func (c *Config) lookup(keys []string) *jsondoc.Value {
	if c == nil || c.Root == nil {
		return nil
	}
	v := c.Root
	for _, k := range keys {
		if v = v.Get(k); v == nil {
			return nil
		}
	}
	return v
}

// ImageMaxDimensionPx is agents.defaults.imageMaxDimensionPx as OpenClaw
// resolves it (resolveImageSanitizationLimits: a finite number, floored, at
// least 1); ok is false when it is not set to a number.
func (c *Config) ImageMaxDimensionPx() (px int, ok bool) {
	v := c.lookup([]string{"agents", "defaults", "imageMaxDimensionPx"})
	if v == nil || v.Kind != jsondoc.Number || math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
		return 0, false
	}
	f := math.Floor(v.Num)
	if f > math.MaxInt32 {
		f = math.MaxInt32
	}
	return max(1, int(f)), true
}
