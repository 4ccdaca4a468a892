package cmd

import (
	"bytes"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/buildinfo"
	"github.com/openclaw-tools/oc/internal/cireport"
	"github.com/openclaw-tools/oc/internal/cli"
)

// addFormatFlag adds --format to a check command (repair; inspect and
// doctor can take it the same way) and returns where its value lands.
func addFormatFlag(cmd *cobra.Command) *string {
	names := make([]string, 0, len(cireport.Formats()))
	for _, f := range cireport.Formats() {
		names = append(names, string(f))
	}
	format := new(string)
	cmd.Flags().StringVar(format, "format", string(cireport.Text), "output format: "+strings.Join(names, ", ")+" (--json is --format json)")
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	return format
}

// resolveFormat reads --format against --json (its shorthand): a usage
// error when they disagree. --format json sets g.JSON, so errors are JSON
// on stderr as with --json.
func resolveFormat(g *Globals, value string) (cireport.Format, error) {
	f, err := cireport.ParseFormat(value)
	if err != nil {
		return "", cli.Usagef("--format: %v", err)
	}
	if g.JSON {
		if f != cireport.Text && f != cireport.JSON {
			return "", cli.Usagef("--json and --format %s cannot be combined (--json is --format json)", f)
		}
		return cireport.JSON, nil
	}
	if f == cireport.JSON {
		g.JSON = true
	}
	return f, nil
}

// writeCIReport writes r in a machine format (SARIF, JUnit, GitHub) on
// stdout. Paths are made relative to the working directory; a SARIF log
// on a terminal is made safe to show as --json output is.
func writeCIReport(g *Globals, f cireport.Format, r *cireport.Report) error {
	r.Tool = "oc"
	r.Version = buildinfo.Read().Version
	if r.BaseDir == "" {
		r.BaseDir, _ = os.Getwd()
	}
	var b bytes.Buffer
	if err := cireport.Write(&b, f, r); err != nil {
		return err
	}
	doc := b.Bytes()
	if f == cireport.SARIF && g.IO.IsStdoutTTY() {
		doc = cli.SafeJSON(doc)
	}
	_, err := g.IO.Out.Write(doc)
	return err
}

// addFailOnFlag adds --fail-on: the least serious finding that makes a
// check exit 1 (what the default means is said in the help).
func addFailOnFlag(cmd *cobra.Command, value *string, def cireport.Level, defMeans string) {
	names := make([]string, 0, 4)
	for _, l := range cireport.FailOnLevels() {
		names = append(names, string(l))
	}
	cmd.Flags().StringVar(value, "fail-on", string(def), "exit 1 when a finding of this severity or worse remains: "+strings.Join(names, ", ")+"; "+defMeans)
	_ = cmd.RegisterFlagCompletionFunc("fail-on", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// readGateFlags reads --format (against --json) and --fail-on; usage
// errors when they are not known.
func readGateFlags(g *Globals, format, failOn string) (cireport.Format, cireport.Level, error) {
	f, err := resolveFormat(g, format)
	if err != nil {
		return "", "", err
	}
	l, err := cireport.ParseFailOn(failOn)
	if err != nil {
		return "", "", cli.Usagef("--fail-on: %v", err)
	}
	return f, l, nil
}
