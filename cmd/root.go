// Package cmd is oc's command tree. Each file holds one command: its flags,
// how configuration fills them, and how its result is printed. Behaviour lives
// in pkg/.
package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/openclaw-tools/oc/internal/buildinfo"
	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/gcpolicy"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Globals are the flags every command has (contract §6), after configuration
// has been applied.
type Globals struct {
	IO         *cli.IOStreams
	StateDir   string
	ConfigFile string
	JSON       bool
	NoColor    bool
	Quiet      bool

	filter filterFlags // --agent and --since of inspect, repair and doctor

	viper *viper.Viper
	env   func(string) string
	gc    *gcpolicy.Tuner // the collector's budget (nil in tests)
}

// ResolvedStateDir is --state-dir, else $OPENCLAW_STATE_DIR, else ~/.openclaw
// (or ~/.clawdbot on older installs).
func (g *Globals) ResolvedStateDir() string {
	if g.StateDir != "" {
		return expandHome(g.StateDir)
	}
	home := g.env("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return transcript.DefaultStateDir(g.env, home)
}

// Execute runs oc with the process's arguments and streams and returns the exit code.
// SIGINT and SIGTERM cancel the context: commands stop cleanly (locks
// released, temporary files removed) and exit 3. A second signal kills oc.
func Execute() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // restore the default action: a second signal ends oc at once
	}()
	gc := gcpolicy.Start(gcpolicy.DefaultBudget, os.Getenv)
	defer gc.Stop()
	return run(ctx, os.Args[1:], cli.System(), os.Getenv, gc)
}

// Run builds a fresh command tree, runs args through it and returns the exit code.
// Errors are printed once on stderr: one line "oc: <what went wrong>" (and,
// for usage errors, where the help is), or with --json one JSON object
// {"error": "...", "exitCode": N}.
func Run(ctx context.Context, args []string, ios *cli.IOStreams, env func(string) string) int {
	return run(ctx, args, ios, env, nil)
}

// run is Run with the process's collector Tuner (nil: the settings are left
// alone, as in-process tests want).
func run(ctx context.Context, args []string, ios *cli.IOStreams, env func(string) string, gc *gcpolicy.Tuner) int {
	root, g := NewRootCmd(ios, env)
	g.gc = gc
	strictCompletionCmd(root) // here, not in NewRootCmd: the man pages document oc's own commands
	root.SetArgs(args)
	c, err := topicWithArguments(ios, env, args)
	if err == nil {
		c, err = root.ExecuteContextC(ctx)
	}
	if err == nil {
		return cli.ExitOK
	}
	code := cli.CodeOf(err)
	msg := err.Error()
	if !isExitError(err) && isCobraUsageError(err) {
		code = cli.ExitUsage
		msg = cobraUsageMessage(msg)
	}
	if isSilent(err) {
		return code
	}
	if g.JSON || jsonRequested(args) {
		// Machines get the error as JSON on stderr; stdout stays one document (or empty).
		b, _ := json.Marshal(map[string]any{"error": oneLine(msg), "exitCode": code})
		fmt.Fprintln(ios.ErrOut, string(b))
		return code
	}
	fmt.Fprintf(ios.ErrOut, "oc: %s\n", cli.Safe(oneLine(msg)))
	if code == cli.ExitUsage {
		path := "oc"
		if c != nil && c.Name() != "help" {
			path = c.CommandPath()
		}
		fmt.Fprintf(ios.ErrOut, "Run '%s --help' for usage.\n", path)
	}
	return code
}

// jsonRequested: --json on the command line, even when parsing stopped
// before it (an unknown flag earlier on the line).
func jsonRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// cobraUsageMessage turns cobra's multi-line argument errors into one line:
// "unknown command "inspct" for "oc"\n\nDid you mean this?\n\tinspect"
// becomes "unknown command "inspct" (did you mean inspect?)".
func cobraUsageMessage(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if m := unknownSubcommandRE().FindStringSubmatch(lines[0]); m != nil {
		// cobra's words for an argument given to a command that takes none.
		return fmt.Sprintf("%s takes no arguments (got %q)", strings.TrimPrefix(m[2], "oc "), m[1])
	}
	first := strings.TrimSuffix(lines[0], ` for "oc"`)
	var sugg []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "\t") {
			sugg = append(sugg, strings.TrimSpace(l))
		}
	}
	if len(sugg) > 0 {
		first += " (did you mean " + strings.Join(sugg, " or ") + "?)"
	}
	return first
}

// NewRootCmd builds the whole command tree. Nothing is shared between trees.
func NewRootCmd(ios *cli.IOStreams, env func(string) string) (*cobra.Command, *Globals) {
	g := &Globals{IO: ios, viper: viper.New(), env: env}
	root := &cobra.Command{
		Use:   "oc",
		Short: "Inspect, repair and migrate OpenClaw gateway state",
		Long: `oc inspects, repairs and migrates the state an OpenClaw gateway keeps on disk,
in either storage era: the SQLite databases of OpenClaw 2026.8.1 and later
(read-only, by the rules of 2026.9.6), and the JSONL session transcripts,
sessions.json indexes and cron job stores before them (by the rules of
2026.5.6, and predicting the one-time import into SQLite).

It documents where it does more than the releases it follows.`,
		Version:       buildinfo.Read().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.configure(cmd)
		},
	}
	// --version is `oc version`, --json included.
	cobra.AddTemplateFunc("ocVersion", versionText)
	root.SetVersionTemplate("{{ocVersion .}}")
	root.Flags().Bool("version", false, "print oc's version (as oc version)")
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetIn(ios.In)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return cli.Exit(cli.ExitUsage, flagError(c, err)) })
	root.SetHelpCommand(newHelpCmd())

	pf := root.PersistentFlags()
	pf.StringVar(&g.StateDir, "state-dir", "", "OpenClaw state directory (default $OPENCLAW_STATE_DIR, else ~/.openclaw)")
	pf.StringVar(&g.ConfigFile, "config", "", "oc config file (default $OC_CONFIG, else $XDG_CONFIG_HOME/oc/config.yaml or ~/.config/oc/config.yaml)")
	pf.BoolVar(&g.JSON, "json", false, "print one JSON document on stdout instead of the human report (errors: one JSON object on stderr)")
	pf.BoolVar(&g.NoColor, "no-color", false, "never style output (also: NO_COLOR=1, TERM=dumb)")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "no progress output on stderr")

	root.AddCommand(
		newInspectCmd(g),
		newRepairCmd(g),
		newReplayCmd(g),
		newDoctorCmd(g),
		newExportCmd(g),
		newShowCmd(g),
		newGrepCmd(g),
		newBrowseCmd(g),
		newVersionCmd(g),
		newExitCodesTopic(),
		newRepairRulesTopic(),
		newEnvironmentTopic(),
		newJSONTopic(),
	)
	return root, g
}

// strictCompletionCmd makes `oc completion` without a shell, or with one
// cobra does not know, a usage error (exit 2) like any other unknown command:
// cobra's own completion command only prints its help and exits 0.
func strictCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = cobra.ArbitraryArgs
		c.SuggestionsMinimumDistance = 1
		c.RunE = func(c *cobra.Command, args []string) error {
			var shells []string
			for _, sub := range c.Commands() {
				shells = append(shells, sub.Name())
			}
			want := strings.Join(shells, ", ")
			if len(args) == 0 {
				return cli.Usagef("completion needs a shell: %s", want)
			}
			msg := fmt.Sprintf("unknown shell %q (want %s)", args[0], want)
			if s := c.SuggestionsFor(args[0]); len(s) > 0 {
				msg = fmt.Sprintf("unknown shell %q (did you mean %s?)", args[0], strings.Join(s, " or "))
			}
			return cli.Usagef("%s", msg)
		}
	}
}

// topicWithArguments rejects arguments given to a help topic (`oc
// exit-codes extra`): cobra runs no argument check on a command without a
// Run and would print the topic and exit 0. The line is parsed on a tree of
// its own so that the real run starts from untouched flags. Anything else
// (and a line whose flags do not parse, which the real run reports) passes.
func topicWithArguments(ios *cli.IOStreams, env func(string) string, args []string) (*cobra.Command, error) {
	probe, _ := NewRootCmd(ios, env)
	target, rest, err := probe.Find(args)
	if err != nil || target == nil || !target.IsAdditionalHelpTopicCommand() {
		return nil, nil
	}
	if err := target.ParseFlags(rest); err != nil {
		return nil, nil
	}
	extra := target.Flags().Args()
	if len(extra) == 0 {
		return nil, nil
	}
	return target, cli.Usagef("%s takes no arguments (got %s)", target.Name(), strings.Join(quoteAll(extra), ", "))
}

// newHelpCmd is `oc help [COMMAND|TOPIC]`; an unknown topic is a usage
// error (exit 2) with suggestions, not the usage text with exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command|topic]",
		Short: "Help about any command or topic",
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, sub := range c.Root().Commands() {
				if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err == nil && target != nil && target != c.Root() && len(rest) > 0 {
				// `oc help exit-codes extra`: one command or topic at a time.
				return cli.Usagef("help %s takes no further arguments (got %s)", strings.TrimPrefix(target.CommandPath(), "oc "), strings.Join(quoteAll(rest), ", "))
			}
			if err != nil || target == nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				msg := fmt.Sprintf("unknown help topic %q", topic)
				if s := c.Root().SuggestionsFor(args[len(args)-1]); len(s) > 0 {
					msg += " (did you mean " + strings.Join(s, " or ") + "?)"
				}
				return cli.Usagef("%s", msg)
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

// flagError says what is wrong with a flag value in the user's terms
// (pflag's own errors quote strconv: "strconv.ParseInt: parsing ...").
func flagError(c *cobra.Command, err error) error {
	m := flagValueRE().FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	name := strings.TrimLeft(m[2], "-")
	if i := strings.IndexByte(name, ','); i >= 0 {
		name = name[:i]
	}
	typ := ""
	if f := c.Flags().Lookup(name); f != nil {
		typ = f.Value.Type()
	}
	return fmt.Errorf("--%s %q: %s", name, m[1], wantForType(typ))
}

var unknownSubcommandRE = lazyre.New(`^unknown command "(.*)" for "(oc \S.*)"$`)

var flagValueRE = lazyre.New(`^invalid argument "(.*)" for "(?:-\w, )?(--[^"]+)" flag`)

// wantForType describes the values a flag of pflag type typ takes.
func wantForType(typ string) string {
	switch typ {
	case "int", "int64", "int32", "uint", "uint64":
		return "want a whole number"
	case "bool":
		return "want true or false"
	case "duration":
		return "want a duration like 30s, 5m or 1h"
	case "float64", "float32":
		return "want a number"
	}
	return "not a valid value"
}

// configure applies configuration in the contract's order: flags > OC_* env >
// config file > defaults. Keys are the global flag names ("state-dir", env
// OC_STATE_DIR) and "<command>.<flag>" for a command's own flags
// ("repair.backup-dir", env OC_REPAIR_BACKUP_DIR). Values are applied to the
// executing command's flags only, so one command's flags never shadow
// another's, and every option struct bound to a flag sees the final value.
func (g *Globals) configure(cmd *cobra.Command) error {
	if err := g.readConfigFile(); err != nil {
		return err
	}
	prefix := strings.TrimPrefix(strings.ReplaceAll(cmd.CommandPath(), " ", "."), "oc")
	prefix = strings.TrimPrefix(prefix, ".")
	var firstErr error
	apply := func(key string, f *pflag.Flag) {
		if f.Changed || firstErr != nil || !configurable(f) {
			return
		}
		name := envNameOf(key)
		s, source := g.env(name), name
		if s == "" {
			if !g.viper.IsSet(key) {
				return
			}
			s, source = configString(g.viper.Get(key)), "config "+key
		}
		if err := f.Value.Set(s); err != nil {
			firstErr = cli.Usagef("%s=%q (for --%s): %s", source, s, f.Name, wantForType(f.Value.Type()))
		}
	}
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { apply(f.Name, f) })
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if prefix == "" || cmd.Root().PersistentFlags().Lookup(f.Name) != nil {
			apply(f.Name, f)
			return
		}
		apply(prefix+"."+f.Name, f)
	})
	if firstErr != nil {
		return firstErr
	}
	g.warnUnknownConfigKeys(cmd)
	g.IO.SetNoColor(g.NoColor || g.env("NO_COLOR") != "" || g.env("TERM") == "dumb")
	g.IO.SetQuiet(g.Quiet)
	return nil
}

// configString turns a config-file value into flag syntax (lists joined by commas).
func configString(val any) string {
	if list, ok := val.([]any); ok {
		parts := make([]string, len(list))
		for i, p := range list {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(val)
}

func (g *Globals) readConfigFile() error {
	path := g.ConfigFile
	explicit := path != ""
	if !explicit {
		path = g.env("OC_CONFIG")
		explicit = path != ""
	}
	if !explicit {
		dir := g.env("XDG_CONFIG_HOME")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return nil
			}
			dir = filepath.Join(home, ".config")
		}
		path = filepath.Join(dir, "oc", "config.yaml")
		if _, err := os.Stat(path); err != nil {
			return nil // no config file is fine
		}
	}
	path = expandHome(path)
	g.viper.SetConfigFile(path)
	if err := g.viper.ReadInConfig(); err != nil {
		var notFound viper.ConfigFileNotFoundError
		if errors.As(err, &notFound) || (!explicit && errors.Is(err, os.ErrNotExist)) {
			return nil
		}
		return cli.Usagef("config file %s: %s", path, configErrorText(err))
	}
	return nil
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

func isExitError(err error) bool {
	var ee *cli.ExitError
	return errors.As(err, &ee)
}

// isSilent reports an ExitError without a message (the report already said it).
func isSilent(err error) bool {
	var ee *cli.ExitError
	return errors.As(err, &ee) && ee.Err == nil
}

// isCobraUsageError recognises the argument errors cobra returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "invalid argument", "accepts ", "requires at least", "requires at most", "received ", "flag needs an argument", "if any flags in the group"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// tuneGCForStreaming gives the streaming commands (inspect, repair, doctor)
// their memory budget (gcpolicy: the collector runs only when the runtime's
// memory reaches it). Their live heap is bounded whatever the input size,
// so Go's default target (collect every time the heap doubles from 4 MiB)
// made them collect thousands of times on a state dir of small files.
// gcLimitRepair for repair and doctor (10,000 small transcripts 0.29 s ->
// 0.22 s under a 48 MiB limit; a 100 MiB repair allocates about 25 MB and
// does not collect), gcLimitInspect for inspect, whose index of a large
// transcript and repair plan beside it live at once (a 100 MiB transcript
// in a folder: 1.56 s under 48 MiB, where the collector ran without pause).
// An index that outgrows the budget hands over to Go's defaults. GOGC or
// GOMEMLIMIT in the environment win. Replay, which holds a whole context in
// memory, keeps gcpolicy.DefaultBudget.
func (g *Globals) tuneGCForStreaming(limit int64) {
	g.gc.SetBudget(limit)
}

// The soft memory limits of tuneGCForStreaming.
const (
	gcLimitRepair  = 48 << 20
	gcLimitInspect = 128 << 20
)

// writeJSON prints v as one indented JSON document. On a terminal, the
// characters a terminal would act on are spelled as \u escapes (the same
// JSON values).
func writeJSON(ios *cli.IOStreams, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	doc := b.Bytes()
	if ios.IsStdoutTTY() {
		doc = cli.SafeJSON(doc)
	}
	_, err := ios.Out.Write(doc)
	return err
}
