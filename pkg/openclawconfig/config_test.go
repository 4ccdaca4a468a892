package openclawconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
}

func noEnv(string) string { return "" }

// JSON5 as people write it: the limit is read from the live key, never from
// a commented-out one (a regex over the text took the comment's value).
func TestImageMaxDimensionFromJSON5(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "openclaw.json"), `{
  // imageMaxDimensionPx: 64,
  /* "imageMaxDimensionPx": 32 */
  agents: { defaults: { imageMaxDimensionPx: 800.9, }, },
}`)
	cfg, err := Load(dir, noEnv, nil)
	require.NoError(t, err)
	px, ok := cfg.ImageMaxDimensionPx()
	assert.True(t, ok)
	assert.Equal(t, 800, px, "floored, as OpenClaw's Math.floor")
	assert.Equal(t, filepath.Join(dir, "openclaw.json"), cfg.Path)
}

func TestImageMaxDimensionOnlyFromANumber(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]int{
		`{agents:{defaults:{imageMaxDimensionPx:"800"}}}`: 0,
		`{agents:{defaults:{imageMaxDimensionPx:NaN}}}`:   0,
		`{agents:{defaults:{}}}`:                          0,
		`{agents:{defaults:{imageMaxDimensionPx:0.5}}}`:   1,
		`{agents:{defaults:{imageMaxDimensionPx:-7}}}`:    1,
		`{agents:{defaults:{imageMaxDimensionPx:1e300}}}`: 2147483647,
	} {
		write(t, filepath.Join(dir, "openclaw.json"), text)
		cfg, err := Load(dir, noEnv, nil)
		require.NoError(t, err, text)
		px, ok := cfg.ImageMaxDimensionPx()
		assert.Equal(t, want != 0, ok, text)
		assert.Equal(t, want, px, text)
	}
}

func TestWhichFileIsRead(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(dir, noEnv, nil)
	require.NoError(t, err, "no config is OpenClaw's defaults, not an error")
	assert.Equal(t, "", cfg.Path)
	_, ok := cfg.ImageMaxDimensionPx()
	assert.False(t, ok)
	assert.Equal(t, filepath.Join(dir, "openclaw.json"), Path(dir, noEnv))

	write(t, filepath.Join(dir, "clawdbot.json"), `{session:{mainKey:"legacy"}}`)
	cfg, err = Load(dir, noEnv, nil)
	require.NoError(t, err)
	got, _ := cfg.String("session", "mainKey")
	assert.Equal(t, "legacy", got)
	assert.Equal(t, filepath.Join(dir, "clawdbot.json"), Path(dir, noEnv))

	write(t, filepath.Join(dir, "openclaw.json"), `{session:{mainKey:"current"}}`)
	cfg, err = Load(dir, noEnv, nil)
	require.NoError(t, err)
	got, _ = cfg.String("session", "mainKey")
	assert.Equal(t, "current", got, "openclaw.json before clawdbot.json")

	elsewhere := filepath.Join(t.TempDir(), "gateway.json5")
	write(t, elsewhere, `{session:{mainKey:"env"}}`)
	env := func(k string) string {
		if k == EnvPath {
			return " " + elsewhere + " "
		}
		return ""
	}
	cfg, err = Load(dir, env, nil)
	require.NoError(t, err)
	got, _ = cfg.String("session", "mainKey")
	assert.Equal(t, "env", got, "$OPENCLAW_CONFIG_PATH first")
	assert.Equal(t, elsewhere, Path(dir, env))
}

func TestBadConfigsSayWhereAndNeverBlock(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "openclaw.json"), "{\n  agents: {,\n}")
	_, err := Load(dir, noEnv, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "openclaw.json")+":2:")
	assert.NotContains(t, err.Error(), "\n")

	big := t.TempDir()
	write(t, filepath.Join(big, "openclaw.json"), "{a:\""+strings.Repeat("x", MaxBytes)+"\"}")
	_, err = Load(big, noEnv, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than")
}
