package cmd

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "image/jpeg"

	"github.com/stretchr/testify/require"
)

// The image limit comes from OpenClaw's config through the one config reader
// (JSON5: a commented-out key is no setting); a config that does not parse
// leaves the default, with a warning.
func TestReplayImageLimitFromOpenClawConfig(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1300, 4))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	data := base64.StdEncoding.EncodeToString(buf.Bytes())
	state := t.TempDir()
	path := filepath.Join(state, "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl")
	transcript := `{"type":"session","version":3,"id":"0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"` + data + `","mimeType":"image/png"}],"timestamp":1778576401000}}
`
	require.NoError(t, os.WriteFile(path, []byte(transcript), 0o600))
	width := func(stdout string) int {
		t.Helper()
		var msgs []struct {
			Content []struct {
				Type string `json:"type"`
				Data string `json:"data"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &msgs), stdout)
		for _, m := range msgs {
			for _, b := range m.Content {
				if b.Type == "image" {
					raw, err := base64.StdEncoding.DecodeString(b.Data)
					require.NoError(t, err)
					cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
					require.NoError(t, err)
					return cfg.Width
				}
			}
		}
		t.Fatalf("no image in %s", stdout)
		return 0
	}
	run := func() (int, string, string) {
		return runOC(t, false, map[string]string{"OPENCLAW_STATE_DIR": state},
			"replay", path, "--state-dir", state, "--provider", "anthropic", "--stage", "sanitized", "--json")
	}

	require.NoError(t, os.WriteFile(filepath.Join(state, "openclaw.json"), []byte(`{
  // agents: { defaults: { imageMaxDimensionPx: 64 } },
  agents: { defaults: { imageMaxDimensionPx: 800, }, },
}`), 0o600))
	code, out, errOut := run()
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 800, width(out), "the live key, not the commented-out one")

	require.NoError(t, os.WriteFile(filepath.Join(state, "openclaw.json"), []byte("{\n  agents: {,\n}"), 0o600))
	code, out, errOut = run()
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1200, width(out), "the default when the config does not parse")
	require.True(t, strings.Contains(errOut, "openclaw.json:2:") && strings.Contains(errOut, fmt.Sprintf("default %d px", 1200)), errOut)
}
