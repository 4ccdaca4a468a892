package cmd

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-tools/oc/internal/cli"
)

// Configuration keys and OC_* variables are derived from the command tree:
// a global flag --state-dir is the key "state-dir" and $OC_STATE_DIR; a
// command's own flag, repair --backup-dir, is "repair.backup-dir" and
// $OC_REPAIR_BACKUP_DIR. configKeys lists them all, for the unknown-key
// warning, `oc help environment` and the man pages.

// noConfigAnnotation marks a flag that only the command line can set.
const noConfigAnnotation = "oc_no_config"

// configurable reports whether configuration may set flag f.
func configurable(f *pflag.Flag) bool {
	if f.Name == "help" || f.Name == "config" || f.Name == "version" {
		return false
	}
	_, cliOnly := f.Annotations[noConfigAnnotation]
	return !cliOnly
}

// configKey is one configuration key with its variable and flag.
type configKey struct {
	Key, Env, Flag, Usage string
}

func envNameOf(key string) string {
	return "OC_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

// configKeys lists every key of the tree, globals first, then by command.
func configKeys(root *cobra.Command) []configKey {
	var keys []configKey
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if configurable(f) {
			keys = append(keys, configKey{Key: f.Name, Env: envNameOf(f.Name), Flag: "--" + f.Name, Usage: f.Usage})
		}
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.Name() == "completion" {
				continue
			}
			prefix := strings.TrimPrefix(strings.ReplaceAll(sub.CommandPath(), " ", "."), "oc.")
			sub.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
				if !configurable(f) || f.Hidden {
					return
				}
				key := prefix + "." + f.Name
				keys = append(keys, configKey{Key: key, Env: envNameOf(key), Flag: sub.CommandPath() + " --" + f.Name, Usage: f.Usage})
			})
			walk(sub)
		}
	}
	walk(root)
	return keys
}

// warnUnknownConfigKeys reports, once, every key of the config file that no
// flag reads (a typo would otherwise be ignored silently). It is a warning
// on stderr, not an error: the run goes on.
func (g *Globals) warnUnknownConfigKeys(cmd *cobra.Command) {
	if g.viper.ConfigFileUsed() == "" {
		return
	}
	known := map[string]bool{}
	for _, k := range configKeys(cmd.Root()) {
		known[k.Key] = true
		// Hidden flags and aliases are still read.
	}
	var unknown []string
	for _, k := range g.viper.AllKeys() {
		if known[k] {
			continue
		}
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			if c, _, err := cmd.Root().Find(strings.Split(k[:i], ".")); err == nil && c != nil && c != cmd.Root() && c.Flags().Lookup(k[i+1:]) != nil {
				continue
			}
		}
		unknown = append(unknown, k)
	}
	if len(unknown) == 0 {
		return
	}
	sort.Strings(unknown)
	g.warn(fmt.Sprintf("config file %s: unknown key%s %s ignored (the keys: oc help environment)",
		g.viper.ConfigFileUsed(), pluralS(len(unknown)), strings.Join(quoteAll(unknown), ", ")))
}

// warn prints one warning on stderr: a line "oc: warning: …", or under
// --json one {"warning": …} object.
func (g *Globals) warn(msg string) {
	if g.JSON {
		b, _ := json.Marshal(map[string]string{"warning": msg})
		fmt.Fprintln(g.IO.ErrOut, string(b))
		return
	}
	fmt.Fprintf(g.IO.ErrOut, "oc: warning: %s\n", cli.Safe(msg)) // paths and names come from files
}

// configErrorText says what is wrong with a config file without viper's
// and the YAML parser's prefixes ("While parsing config: yaml: line 1: ...").
func configErrorText(err error) string {
	s := oneLine(err.Error())
	s = strings.TrimPrefix(s, "While parsing config: ")
	if strings.HasPrefix(s, "yaml: ") {
		s = strings.TrimPrefix(s, "yaml: ") + " (not valid YAML)"
	}
	if i := strings.Index(s, "open "); i == 0 {
		if j := strings.LastIndex(s, ": "); j > 0 {
			s = s[j+2:]
		}
	}
	return s
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// otherEnvironment are the variables oc reads that are not OC_<key>.
var otherEnvironment = [][2]string{
	{"OC_CONFIG", "the config file (as --config)"},
	{"OPENCLAW_STATE_DIR", "the OpenClaw state dir when neither --state-dir nor OC_STATE_DIR is set"},
	{"OPENCLAW_CONFIG_PATH", "OpenClaw's own config file (doctor, replay: default agent, image size)"},
	{"XDG_CONFIG_HOME", "where the default config file is: $XDG_CONFIG_HOME/oc/config.yaml"},
	{"HOME", "~ in paths; the default state dir ~/.openclaw (older installs: ~/.clawdbot)"},
	{"NO_COLOR", "when set, no colours (as --no-color)"},
	{"TERM", "TERM=dumb: no colours"},
	{"TMPDIR", "where doctor looks for the gateway's lock (openclaw-<uid>)"},
	{"SOURCE_DATE_EPOCH", "fixes doctor's clock (timestamps and names of backups and reports)"},
	{"GOGC, GOMEMLIMIT", "override the garbage-collector settings of inspect, repair and doctor"},
}

// environmentHelp is `oc help environment` and the man pages' ENVIRONMENT.
func environmentHelp(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString(`Configuration is applied in this order: flags > OC_* variables > the config
file > defaults. The config file is YAML: --config FILE, else $OC_CONFIG, else
$XDG_CONFIG_HOME/oc/config.yaml (~/.config/oc/config.yaml). A key names a flag:
a global flag by its name, a command's flag as <command>.<flag>:

  state-dir: /srv/openclaw
  repair:
    backup-dir: /var/backups/oc

Every key has a variable OC_<KEY> (upper case, "." and "-" as "_"). A key the
file has but no flag reads is reported on stderr as a warning and ignored.

Keys and variables:

`)
	for _, k := range configKeys(root) {
		fmt.Fprintf(&b, "  %-28s %s\n      %s\n", k.Key, k.Env, k.Usage)
	}
	b.WriteString("\nOther variables:\n\n")
	for _, e := range otherEnvironment {
		fmt.Fprintf(&b, "  %-20s %s\n", e[0], e[1])
	}
	return strings.TrimRight(b.String(), "\n")
}

// filesHelp is the man pages' FILES section.
const filesHelp = `~/.config/oc/config.yaml      oc's config file ($XDG_CONFIG_HOME/oc/config.yaml; --config, $OC_CONFIG)
~/.openclaw                   the OpenClaw state dir (--state-dir, $OPENCLAW_STATE_DIR; older installs ~/.clawdbot)
agents/<id>/sessions/*.jsonl  session transcripts, with sessions.json beside them
<file>.lock                   the gateway's write lock on a transcript (honoured by repair)
<file>.bak-oc-<stamp>         repair's backup of a transcript (repair --undo restores it)
<file>.rejected-<stamp>       lines repair dropped or rewrote, with their line numbers
cron/jobs.json                the cron store doctor checks and migrates
<file>.pre-oc-doctor.<stamp>  doctor's backup of a file before --fix writes it
cron/doctor-session-target-migration-<stamp>.json  doctor's migration report`

// newEnvironmentTopic is `oc help environment`. Its text is built when it
// is shown (from the tree it belongs to).
func newEnvironmentTopic() *cobra.Command {
	c := &cobra.Command{
		Use:   "environment",
		Short: "Configuration keys, OC_* variables and the files oc reads",
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprintf(c.OutOrStdout(), "%s\n\nFiles:\n\n%s\n", environmentHelp(c.Root()), indent(filesHelp, "  "))
	})
	return c
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(s, "\n", "\n"+by)
}
