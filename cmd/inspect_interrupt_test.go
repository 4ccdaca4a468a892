package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// SIGINT/SIGTERM cancel the command's context. inspect then reads nothing
// more and exits 3 with one line saying the report is incomplete, in both
// eras; before, it read every remaining session or file and exited 0.
func TestInspectStopsWhenInterrupted(t *testing.T) {
	dir := oracletest.ColdFixtureDir(t)
	sqliteState := oracletest.ColdState96(t, dir, "file")
	for name, args := range map[string][]string{
		"sqlite": {"inspect", "--state-dir", sqliteState},
		"jsonl":  {"inspect", "--state-dir", "../testdata/example-state"},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			ios, _, errOut := cli.Test(false)
			code := Run(ctx, args, ios, func(k string) string {
				if k == "HOME" || k == "XDG_CONFIG_HOME" {
					return t.TempDir()
				}
				return ""
			})
			if code != cli.ExitIncomplete {
				t.Fatalf("exit %d, want %d (stderr %q)", code, cli.ExitIncomplete, errOut.String())
			}
			oneLineError(t, errOut.String())
			if !strings.Contains(errOut.String(), "interrupted") {
				t.Errorf("stderr %q: want it to say interrupted", errOut.String())
			}
		})
	}
}
