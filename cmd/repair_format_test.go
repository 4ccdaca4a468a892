package cmd

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
)

// TestMain lets the test binary stand in for oc (OC_CMD_TEST_AS_OC=1): the
// CI script test runs it as a shell script would run oc.
func TestMain(m *testing.M) {
	if os.Getenv("OC_CMD_TEST_AS_OC") == "1" {
		os.Exit(Execute())
	}
	os.Exit(m.Run())
}

// copyTreeTo copies the tree src into a fresh temp dir (files 0600) and
// returns it.
func copyTreeTo(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	}))
	return dst
}

var sarifVersionRE = regexp.MustCompile(`("name": "oc",\n\s*"version": )"[^"]*"`)

// The CI formats of `oc repair --check`, golden on the example state, the
// repair fixture and a state with a parentId cycle and a repeated header:
// the SARIF log validates against the 2.1.0 schema, the JUnit report parses
// with encoding/xml and its counts are those of --json.
func TestRepairCheckFormatsGolden(t *testing.T) {
	schema, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "internal", "cireport", "testdata", "sarif-schema-2.1.0.json"))
	require.NoError(t, err)
	goldens := map[string]string{} // written once back in the package folder
	defer func() {
		for name, out := range goldens {
			golden(t, name, []byte(out))
		}
	}()
	for _, st := range []struct{ name, dir string }{
		{"example", filepath.Join("..", "testdata", "example-state")},
		{"damaged", filepath.Join("..", "testdata", "repair", "state")},
		{"gates", filepath.Join("..", "testdata", "gates", "state")},
	} {
		t.Run(st.name, func(t *testing.T) {
			state := copyTreeTo(t, st.dir)
			t.Chdir(state) // paths relative to the working directory
			before := snapshot(t, state)
			code, jsonOut, errOut := runOC(t, false, nil, "repair", "--check", "--json", "--state-dir", ".")
			require.Equal(t, cli.ExitFindings, code, errOut)
			var doc struct {
				Files []struct {
					Path    string `json:"path"`
					Skipped string `json:"skipped"`
					Busy    bool   `json:"busy"`
				} `json:"files"`
				Totals struct {
					Files, NeedsRepair, Errors, Busy int
				} `json:"totals"`
			}
			require.NoError(t, json.Unmarshal([]byte(jsonOut), &doc))

			code, out, errOut := runOC(t, false, nil, "repair", "--check", "--format", "sarif", "--state-dir", ".")
			require.Equal(t, cli.ExitFindings, code, errOut)
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
			require.NoError(t, err)
			require.NoError(t, schema.Validate(inst), "not valid SARIF 2.1.0")
			var sarif struct {
				Runs []struct {
					Tool    struct{ Driver struct{ Name string } }
					Results []struct {
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string }
								Region           struct{ StartLine int }
							}
						}
					}
				}
			}
			require.NoError(t, json.Unmarshal([]byte(out), &sarif))
			assert.Equal(t, "oc", sarif.Runs[0].Tool.Driver.Name)
			require.NotEmpty(t, sarif.Runs[0].Results)
			for _, r := range sarif.Runs[0].Results {
				loc := r.Locations[0].PhysicalLocation
				assert.True(t, strings.HasPrefix(loc.ArtifactLocation.URI, "agents/"), "uri %q not relative to the working directory", loc.ArtifactLocation.URI)
				assert.Positive(t, loc.Region.StartLine)
			}
			goldens["repair-check-"+st.name+".sarif"] = sarifVersionRE.ReplaceAllString(out, `$1"VERSION"`)

			code, out, errOut = runOC(t, false, nil, "repair", "--check", "--format", "junit", "--state-dir", ".")
			require.Equal(t, cli.ExitFindings, code, errOut)
			var junit struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
				Skipped  int `xml:"skipped,attr"`
				Suites   []struct {
					Cases []struct {
						Name    string    `xml:"name,attr"`
						Failure *struct{} `xml:"failure"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			require.NoError(t, xml.Unmarshal([]byte(out), &junit))
			assert.Equal(t, doc.Totals.Files, junit.Tests, "testcases = files checked")
			assert.Equal(t, doc.Totals.NeedsRepair, junit.Failures, "failures = files that need repair")
			assert.Equal(t, doc.Totals.Errors, junit.Errors)
			skipped := 0
			for _, f := range doc.Files {
				if f.Busy || f.Skipped != "" {
					skipped++
				}
			}
			assert.Equal(t, skipped, junit.Skipped)
			require.Len(t, junit.Suites[0].Cases, len(doc.Files))
			for i, c := range junit.Suites[0].Cases {
				assert.Equal(t, filepath.ToSlash(filepath.Clean(doc.Files[i].Path)), c.Name)
			}
			goldens["repair-check-"+st.name+".junit.xml"] = out

			code, out, errOut = runOC(t, false, nil, "repair", "--check", "--format", "github", "--state-dir", ".")
			require.Equal(t, cli.ExitFindings, code, errOut)
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.HasPrefix(l, "::") {
					assert.Regexp(t, `^::(error|warning|notice) file=agents/[^,:]+,line=\d+,title=[a-z0-9-]+::`, l)
				}
			}
			goldens["repair-check-"+st.name+".github.txt"] = out
			assert.Equal(t, before, snapshot(t, state), "--check must not write anything")
		})
	}
}

// --json is --format json; the two cannot disagree; --format with --undo
// is a usage error.
func TestRepairFormatFlags(t *testing.T) {
	state := copyState(t)
	_, a, _ := runOC(t, false, nil, "repair", "--check", "--json", "--state-dir", state)
	_, b, _ := runOC(t, false, nil, "repair", "--check", "--format", "json", "--state-dir", state)
	assert.Equal(t, a, b)
	code, _, errOut := runOC(t, false, nil, "repair", "--check", "--json", "--format", "sarif", "--state-dir", state)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "cannot be combined")
	code, _, errOut = runOC(t, false, nil, "repair", "--check", "--format", "xml", "--state-dir", state)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "sarif")
	code, _, _ = runOC(t, false, nil, "repair", "--undo", "--format", "junit", filepath.Join(state, "x.jsonl"))
	assert.Equal(t, cli.ExitUsage, code)
	// a --format json error is JSON on stderr, as with --json
	code, _, errOut = runOC(t, false, nil, "repair", "--check", "--format", "json", "/nonexistent/x.jsonl")
	assert.Equal(t, cli.ExitIncomplete, code)
	assertJSONError(t, errOut, cli.ExitIncomplete)
}

// Tried as a CI maintainer would: docs/examples/oc-gate.sh (a workflow
// step running `oc repair --check --format github`) on a clean, a damaged,
// a locked and an unreadable transcript exits as `oc help exit-codes`
// says, with annotations for the damaged one; a lock released between two
// tries passes on the second.
func TestCIGateScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nOC_CMD_TEST_AS_OC=1 exec " + strconv.Quote(self) + " \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "oc"), []byte(wrapper), 0o755))
	script, err := filepath.Abs(filepath.Join("..", "docs", "examples", "oc-gate.sh"))
	require.NoError(t, err)

	state := copyTreeTo(t, filepath.Join("..", "testdata", "gates", "state"))
	sessions := filepath.Join(state, "agents", "main", "sessions")
	clean := filepath.Join(sessions, "a0a0a0a0-0000-4000-8000-000000000001.jsonl")
	cycle := filepath.Join(sessions, "b0b0b0b0-0000-4000-8000-000000000002.jsonl")
	run := func(tries string, args ...string) (int, string) {
		return runGate(t, script, state, bin, tries, "1", args...)
	}

	code, out := run("1", clean)
	assert.Equal(t, cli.ExitOK, code, out)
	assert.Contains(t, out, "oc gate: clean")

	code, out = run("1", cycle)
	assert.Equal(t, cli.ExitFindings, code, out)
	assert.Contains(t, out, "::error file=agents/main/sessions/b0b0b0b0-0000-4000-8000-000000000002.jsonl,line=3,title=parent-cycle::")

	lock := clean + ".lock"
	live := `{"pid": ` + strconv.Itoa(os.Getpid()) + `, "createdAt": "` + time.Now().UTC().Format(time.RFC3339) + `"}`
	require.NoError(t, os.WriteFile(lock, []byte(live), 0o644))
	code, out = run("2", clean)
	assert.Equal(t, cli.ExitBusy, code, out)
	assert.Contains(t, out, "::warning file=agents/main/sessions/a0a0a0a0-0000-4000-8000-000000000001.jsonl,title=busy::")
	assert.Contains(t, out, "still busy after 2 tries")

	// released while the script waits between tries: the second try passes
	go func() {
		time.Sleep(2 * time.Second)
		_ = os.Remove(lock)
	}()
	code, out = runGate(t, script, state, bin, "3", "4", clean)
	assert.Equal(t, cli.ExitOK, code, out)
	assert.Contains(t, out, "retrying")

	// unreadable: a FIFO named like a transcript (never opened), and, when
	// not root (who reads any file), a file without read permission
	fifo := filepath.Join(sessions, "d0d0d0d0-0000-4000-8000-000000000004.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	code, out = run("1", fifo)
	assert.Equal(t, cli.ExitIncomplete, code, out)
	assert.Contains(t, out, "title=check-failed::")
	require.NoError(t, os.Remove(fifo))
	if os.Geteuid() != 0 {
		unreadable := filepath.Join(sessions, "c0c0c0c0-0000-4000-8000-000000000003.jsonl")
		require.NoError(t, os.Chmod(unreadable, 0))
		code, out = run("1", unreadable)
		assert.Equal(t, cli.ExitIncomplete, code, out)
		assert.Contains(t, out, "title=check-failed::")
		require.NoError(t, os.Chmod(unreadable, 0o644))
	}
	notThere := filepath.Join(sessions, "missing.jsonl")
	code, out = run("1", notThere)
	assert.Equal(t, cli.ExitIncomplete, code, out)
	assert.Contains(t, out, "could not complete (exit 3)")
}

// runGate runs the gate script in dir with oc (the test binary) first on
// PATH, and returns its exit code and output.
func runGate(t *testing.T, script, dir, bin, tries, pause string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OC_GATE_TRIES="+tries, "OC_GATE_PAUSE="+pause, "HOME="+t.TempDir(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	require.NoError(t, err)
	return 0, string(out)
}

// Issue 33's cycle through every command: inspect and replay name the same
// line (the cycle's entry written first, the link repair cuts), repair
// --check fails on it, and doctor reports it as an error.
func TestParentCycleAcrossCommands(t *testing.T) {
	state := copyTreeTo(t, filepath.Join("..", "testdata", "gates", "state"))
	file := filepath.Join(state, "agents", "main", "sessions", "b0b0b0b0-0000-4000-8000-000000000002.jsonl")
	_, out, errOut := runOC(t, false, nil, "inspect", "--json", file)
	var ins struct {
		Findings []struct {
			Rule     string `json:"rule"`
			Line     int64  `json:"line"`
			Severity string `json:"severity"`
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ins), errOut)
	got := map[string]string{}
	for _, f := range ins.Findings {
		got[f.Rule] = f.Severity + " line " + strconv.FormatInt(f.Line, 10)
	}
	assert.Equal(t, "error line 3", got["parent-cycle"])
	assert.Equal(t, "error line 3", got["repair"], "the repair finding of a cycle is an error")

	code, _, errOut := runOC(t, false, nil, "replay", file, "--provider", "anthropic")
	assert.Equal(t, cli.ExitIncomplete, code)
	assert.Contains(t, errOut, "line 3: the active branch runs into a cycle")

	code, _, _ = runOC(t, false, nil, "repair", "--check", file)
	assert.Equal(t, cli.ExitFindings, code)

	// the leaf's walk enters the cycle elsewhere than the file-order walk
	// (at c2, through y): both still name c1, the entry written first
	other := filepath.Join(t.TempDir(), "e0e0e0e0-0000-4000-8000-000000000005.jsonl")
	msg := func(id, parent string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-05-17T06:40:01.000Z","message":{"role":"user","content":"` + id + `"}}`
	}
	require.NoError(t, os.WriteFile(other, []byte(strings.Join([]string{
		`{"type":"session","version":3,"id":"e0e0e0e0-0000-4000-8000-000000000005","timestamp":"2026-05-17T06:40:00.000Z","cwd":"/w"}`,
		msg("x", "null"), msg("c1", `"c3"`), msg("c2", `"c1"`), msg("c3", `"c2"`), msg("y", `"c2"`)}, "\n")+"\n"), 0o644))
	_, out, _ = runOC(t, false, nil, "inspect", "--json", other)
	require.NoError(t, json.Unmarshal([]byte(out), &ins))
	for _, f := range ins.Findings {
		if f.Rule == "parent-cycle" {
			assert.Equal(t, int64(3), f.Line, "inspect names c1")
		}
	}
	_, _, errOut = runOC(t, false, nil, "replay", other, "--provider", "anthropic")
	assert.Contains(t, errOut, "line 3: the active branch runs into a cycle", "replay names c1 too")

	code, out, errOut = runOC(t, false, doctorEnv(t), "doctor", "--json", "--state-dir", state)
	assert.Equal(t, cli.ExitFindings, code, errOut)
	var doc struct {
		Findings []struct {
			ID, Severity, Path, Message string
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	sev := map[string]string{}
	for _, f := range doc.Findings {
		if f.ID == "transcript-needs-repair" || f.ID == "upgrade-refused" {
			sev[filepath.Base(f.Path)+" "+f.ID] = f.Severity
		}
	}
	assert.Equal(t, map[string]string{
		"b0b0b0b0-0000-4000-8000-000000000002.jsonl transcript-needs-repair": "error",
		"c0c0c0c0-0000-4000-8000-000000000003.jsonl transcript-needs-repair": "error",
		"c0c0c0c0-0000-4000-8000-000000000003.jsonl upgrade-refused":         "error",
	}, sev)
}
