package cmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/store"
)

// Shell completion of flag values and SESSION arguments. The candidates
// come from the same lists the commands check their values against.

// completeValues completes a flag from a fixed list (no file names).
func completeValues(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSessions offers the session ids and keys of the state dir, in
// either era, and once an "@" is typed the archived generations as
// SESSIONID@GENERATION (and, as the shell's default, file names: SESSION
// may be a path). Only the first argument is a SESSION.
func (g *Globals) completeSessions(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if strings.ContainsAny(toComplete, `/\~`) || strings.HasPrefix(toComplete, ".") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	st, err := store.Open(g.ResolvedStateDir(), store.Options{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	sessions, err := st.Sessions(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	var out []string
	seen := map[string]bool{}
	add := func(value, desc string) {
		if value != "" && !seen[value] && strings.HasPrefix(value, toComplete) {
			seen[value] = true
			out = append(out, cli.Safe(value)+"\t"+cli.Safe(desc))
		}
	}
	for _, s := range sessions {
		add(s.Key, s.ID)
		add(s.ID, s.Agent)
	}
	// Archived generations once an "@" is typed: SESSIONID@GENERATION.
	if strings.Contains(toComplete, "@") {
		if archived, err := st.ArchivedSessions(ctx); err == nil {
			for _, s := range archived {
				add(s.Label(), s.Archive.Reason+" "+s.Key)
			}
		}
	}
	return out, cobra.ShellCompDirectiveDefault
}

// completeInspectArgs: inspect takes one SESSION (completed as
// completeSessions does) or any number of paths (file names, as the shell
// completes them).
func (g *Globals) completeInspectArgs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return g.completeSessions(cmd, args, toComplete)
}

func registerRepairCompletions(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("rules", completeValues(string(repair.RuleSetAll), string(repair.RuleSetOpenClaw)))
}

func registerReplayCompletions(cmd *cobra.Command, g *Globals) {
	cmd.ValidArgsFunction = g.completeSessions
	_ = cmd.RegisterFlagCompletionFunc("provider", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		values := append([]string{"all"}, knownProviders()...)
		values = append(values, aliasesOf()...)
		return values, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("api", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return knownAPIs(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("stage", completeValues(stageContext, stageSanitized, stagePayload))
	_ = cmd.RegisterFlagCompletionFunc("openclaw", completeValues(releaseCompletions(true)...))
	_ = cmd.RegisterFlagCompletionFunc("tz", completeValues("Local", "UTC"))
}

// releaseCompletions are the values of --openclaw: each release, and with
// pairs, the comparison of the oldest and the newest.
func releaseCompletions(pairs bool) []string {
	var out []string
	for _, r := range policy.Releases() {
		out = append(out, string(r))
	}
	if pairs && len(out) > 1 {
		out = append(out, out[0]+","+out[len(out)-1])
	}
	return out
}
