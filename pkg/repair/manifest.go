package repair

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
)

// ManifestFormat names the manifest's format.
const ManifestFormat = "oc-backup-manifest/1"

// ManifestSuffix follows a backup's name (without ".zst") to name its manifest:
// "<file>.bak-oc-<stamp>.manifest.json". It does not end in ".jsonl", so
// OpenClaw never counts it as a session.
const ManifestSuffix = ".manifest.json"

// Manifest is written beside every backup oc makes: it says which file the
// backup belongs to (its absolute real path, and a digest of that path for
// tools that compare names), what the backup holds, and what oc then wrote
// to the file, so that --undo can restore only its own backup, only a
// complete one, and only over exactly what the repair left.
type Manifest struct {
	Format string `json:"format"`
	// Kind is "repair" (a repair replaced the file) or "undo" (an undo
	// --force replaced a file that had changed since its repair).
	Kind     string `json:"kind"`
	Source   string `json:"source"`   // absolute real path of the file
	SourceID string `json:"sourceId"` // sha256 of Source, hex
	Stamp    string `json:"stamp"`
	// Backup is the backup file as stored (compressed when Compressed).
	Backup     durable.Digest `json:"backup"`
	BackupName string         `json:"backupName"`
	Compressed bool           `json:"compressed,omitempty"`
	// Original is the file's content before the operation (what undo restores).
	Original durable.Digest `json:"original"`
	// Written is the file's content right after the operation.
	Written        durable.Digest  `json:"written"`
	Quarantine     *durable.Digest `json:"quarantine,omitempty"`
	QuarantineName string          `json:"quarantineName,omitempty"`
}

// SourceID is the digest of a file's absolute real path that a manifest records.
func SourceID(realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	return hex.EncodeToString(sum[:])
}

// ManifestPath is the manifest of a backup.
func ManifestPath(backup string) string {
	return strings.TrimSuffix(backup, ".zst") + ManifestSuffix
}

// ReadManifest reads a backup's manifest; it returns nil and no error when
// the backup has none (a backup made by an oc before manifests existed).
func ReadManifest(backup string) (*Manifest, error) {
	p := ManifestPath(backup)
	raw, err := durable.ReadRegular(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Format != ManifestFormat || m.Source == "" {
		return nil, fmt.Errorf("%s: not an oc backup manifest", p)
	}
	return &m, nil
}

// writeManifest stores m beside backup, complete or not at all.
func writeManifest(ctx context.Context, fsys durable.FS, backup string, m *Manifest, chown func(durable.File) error) (string, error) {
	m.Format = ManifestFormat
	m.SourceID = SourceID(m.Source)
	m.BackupName = filepath.Base(backup)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	b = append(b, '\n')
	p := ManifestPath(backup)
	_, err = durable.WriteNew(ctx, fsys, p, 0o600, chown, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(b))
		return err
	})
	return p, err
}

// realAbs is the absolute real path of a file (symlinks resolved); when the
// file does not exist, the real path of its folder joined with its name.
func realAbs(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	dir := filepath.Dir(abs)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return filepath.Join(dir, filepath.Base(abs))
}
