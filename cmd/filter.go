package cmd

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// filterFlags are --agent and --since, shared by inspect, repair and doctor.
type filterFlags struct {
	Agent string
	Since string
}

func addFilterFlags(cmd *cobra.Command, g *Globals) {
	f := cmd.Flags()
	f.StringVar(&g.filter.Agent, "agent", "", "only the transcripts of agent ID (agents/ID/sessions)")
	f.StringVar(&g.filter.Since, "since", "", "only transcripts changed since DURATION ago (90m, 36h, 7d) or since DATE (2026-11-30, RFC 3339)")
	_ = cmd.RegisterFlagCompletionFunc("agent", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return g.agentIDs(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("since", cobra.FixedCompletions([]string{"1h", "24h", "7d", "30d"}, cobra.ShellCompDirectiveNoFileComp))
}

// fileFilter is the transcript.Filter of --agent and --since.
func (g *Globals) fileFilter() (transcript.Filter, error) {
	since, err := transcript.ParseSince(g.filter.Since, time.Now())
	if err != nil {
		return transcript.Filter{}, cli.Usagef("--since %q: %v", g.filter.Since, err)
	}
	return transcript.Filter{Agent: g.filter.Agent, Since: since}, nil
}

// agentIDs lists the agents of the state dir (for completion).
func (g *Globals) agentIDs() []string {
	sd, err := transcript.OpenStateDir(g.ResolvedStateDir())
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(sd.Agents))
	for _, a := range sd.Agents {
		ids = append(ids, a.ID)
	}
	return ids
}
