package cmd

import (
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// The CI formats of `oc inspect` and `oc doctor` (issue 33), golden on the
// example state and the damaged repair fixture: the SARIF log validates
// against the 2.1.0 schema and has one result per finding of --json, the
// JUnit report parses with encoding/xml and its counts are those of
// --json, the GitHub commands are one per finding. --fail-on decides the
// exit and the JUnit failures.
func TestInspectDoctorFormatsGolden(t *testing.T) {
	schema, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "internal", "cireport", "testdata", "sarif-schema-2.1.0.json"))
	require.NoError(t, err)
	goldens := map[string]string{}
	defer func() {
		for name, out := range goldens {
			golden(t, name, []byte(out))
		}
	}()
	for _, st := range []struct{ name, dir string }{
		{"example", filepath.Join("..", "testdata", "example-state")},
		{"damaged", filepath.Join("..", "testdata", "repair", "state")},
		{"sqlite", ""}, // the example install as 2026.9.6 imported it
	} {
		for _, command := range []string{"inspect", "doctor"} {
			t.Run(command+"-"+st.name, func(t *testing.T) {
				var state string
				if st.dir == "" {
					state = oracletest.Fixture96State(t, "example-state")
				} else {
					state = copyTreeTo(t, st.dir)
				}
				t.Chdir(state)
				env := doctorEnv(t)
				args := []string{command, "--state-dir", ".", "--fail-on", "warning"}
				code, jsonOut, errOut := runOC(t, false, env, append(args, "--json")...)
				require.Contains(t, []int{cli.ExitOK, cli.ExitFindings}, code, errOut)
				findings, failing, files := countJSONFindings(t, command, jsonOut)

				// --fail-on: warning fails on a warning; never does not
				wantCode := cli.ExitOK
				if failing > 0 {
					wantCode = cli.ExitFindings
				}
				assert.Equal(t, wantCode, code, "--fail-on warning")
				code, _, _ = runOC(t, false, env, command, "--state-dir", ".", "--fail-on", "never", "--json")
				assert.Equal(t, cli.ExitOK, code, "--fail-on never")

				code, out, errOut := runOC(t, false, env, append(args, "--format", "sarif")...)
				assert.Equal(t, wantCode, code, errOut)
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
				require.NoError(t, err)
				require.NoError(t, schema.Validate(inst), "not valid SARIF 2.1.0")
				var sarif struct {
					Runs []struct {
						Tool struct {
							Driver struct {
								Name  string
								Rules []struct{ ID string }
							}
						}
						Results []struct {
							RuleID    string
							Locations []struct {
								PhysicalLocation struct {
									ArtifactLocation struct{ URI string }
								}
							}
						}
					}
				}
				require.NoError(t, json.Unmarshal([]byte(out), &sarif))
				assert.Equal(t, "oc", sarif.Runs[0].Tool.Driver.Name)
				assert.Len(t, sarif.Runs[0].Results, findings, "one SARIF result per finding of --json")
				for _, r := range sarif.Runs[0].Results {
					uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI
					assert.False(t, filepath.IsAbs(uri), "uri %q not relative to the working directory", uri)
				}
				goldens[command+"-"+st.name+".sarif"] = normalizeState(sarifVersionRE.ReplaceAllString(out, `$1"VERSION"`), state)

				code, out, errOut = runOC(t, false, env, append(args, "--format", "junit")...)
				assert.Equal(t, wantCode, code, errOut)
				var junit struct {
					Tests    int `xml:"tests,attr"`
					Failures int `xml:"failures,attr"`
				}
				require.NoError(t, xml.Unmarshal([]byte(out), &junit))
				assert.Equal(t, files, junit.Tests, "testcases = files with the install")
				assert.Equal(t, failing, junit.Failures, "failures = files with a finding at --fail-on")
				goldens[command+"-"+st.name+".junit.xml"] = normalizeState(out, state)

				code, out, errOut = runOC(t, false, env, append(args, "--format", "github")...)
				assert.Equal(t, wantCode, code, errOut)
				lines := strings.Split(strings.TrimSpace(out), "\n")
				annotations := 0
				for _, l := range lines {
					if strings.HasPrefix(l, "::") {
						annotations++
						assert.NotContains(t, strings.SplitN(l, "::", 3)[2], "\n")
					}
				}
				assert.Equal(t, findings, annotations, "one workflow command per finding")
				goldens[command+"-"+st.name+".github.txt"] = normalizeState(out, state)
			})
		}
	}
}

// countJSONFindings counts, in the --json document of inspect or doctor,
// the findings, the files with a warning or error (the JUnit failures at
// --fail-on warning) and the files checked (the JUnit testcases).
func countJSONFindings(t *testing.T, command, out string) (findings, failing, files int) {
	t.Helper()
	if command == "doctor" {
		var doc struct {
			StateDir string `json:"stateDir"`
			Findings []struct {
				Severity, Path string
				Fixed          bool
			} `json:"findings"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		paths := map[string]bool{doc.StateDir: true}
		fails := map[string]bool{}
		for _, f := range doc.Findings {
			if f.Fixed {
				continue
			}
			findings++
			p := f.Path
			if p == "" {
				p = doc.StateDir
			}
			paths[p] = true
			if f.Severity != "info" {
				fails[p] = true
			}
		}
		return findings, len(fails), len(paths)
	}
	var doc struct {
		Sessions []struct {
			Path     string
			Findings []struct{ Severity string }
		} `json:"sessions"`
		Errors    []struct{ Path string }           `json:"errors"`
		Databases []struct{ Path string }           `json:"databases"`
		Findings  []struct{ Severity, Path string } `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	if doc.Databases == nil { // JSONL: a testcase per transcript
		for _, s := range doc.Sessions {
			failed := false
			for _, f := range s.Findings {
				findings++
				failed = failed || f.Severity != "info"
			}
			if failed {
				failing++
			}
		}
		return findings + len(doc.Errors), failing, len(doc.Sessions) + len(doc.Errors)
	}
	// SQLite: a testcase per database and per other path a finding names
	paths, fails := map[string]bool{}, map[string]bool{}
	for _, d := range doc.Databases {
		paths[d.Path] = true
	}
	for _, s := range doc.Sessions {
		for _, f := range s.Findings {
			findings++
			if f.Severity != "info" {
				fails[s.Path] = true
			}
		}
	}
	for _, f := range doc.Findings {
		findings++
		paths[f.Path] = true
		if f.Severity != "info" {
			fails[f.Path] = true
		}
	}
	return findings + len(doc.Errors), len(fails), len(paths) + len(doc.Errors)
}
