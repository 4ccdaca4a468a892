package replay

import (
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize/sanitize56"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize/sanitize96"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// The sanitize stage lives in package sanitize (what the releases share)
// and one package per OpenClaw release (sanitize56, sanitize96); these are
// its names as cmd and the compare glue have always called them.

// Options configures Sanitize (see sanitize.Options).
type Options = sanitize.Options

// Result is what Sanitize returns (see sanitize.Result).
type Result = sanitize.Result

// Change is one change a sanitize step made (see sanitize.Change).
type Change = sanitize.Change

// ModelSnapshot is a model-snapshot entry on the branch (see
// sanitize.ModelSnapshot).
type ModelSnapshot = sanitize.ModelSnapshot

// OpenClawFailure is an input OpenClaw itself fails on (see
// sanitize.OpenClawFailure).
type OpenClawFailure = sanitize.OpenClawFailure

// DefaultImageMaxDimensionPx is the image side limit without configuration.
const DefaultImageMaxDimensionPx = sanitize.DefaultImageMaxDimensionPx

// Sanitize runs a release's replay pipeline on the context messages (the
// active branch as model messages): sanitizeSessionHistory,
// validateReplayTurns, then the embedded runner's heartbeat filter and
// pairing repair before the model call. opts.Release picks the release
// (zero: 2026.5.6; see pipelineFor). The input is never modified.
func Sanitize(messages []Message, opts Options) (*Result, error) {
	return pipelineFor(opts.Release).Run(messages, opts)
}

// pipelineFor returns the sanitize pipeline of a release (zero: 2026.5.6).
func pipelineFor(rel policy.Release) sanitize.Pipeline {
	if rel == policy.Release96 {
		return sanitize96.Pipeline()
	}
	return sanitize56.Pipeline()
}

// ContextError is the error OpenClaw stops with for ctx, if any (see
// sanitize56.ContextError).
func ContextError(ctx *transcript.Context) error { return sanitize56.ContextError(ctx) }

// ModelSnapshotsOnBranch returns the model snapshots of a branch's entries
// (what 2026.9.6 reads to date a model switch).
func ModelSnapshotsOnBranch(entries [][]byte) ([]ModelSnapshot, error) {
	return sanitize96.ModelSnapshotsOnBranch(entries)
}
