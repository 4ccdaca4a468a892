package replay

import (
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// The sanitize stage lives in package sanitize; these are its names as
// cmd and the compare glue have always called them.

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

// Sanitize runs the sanitize pipeline of opts' release over messages.
func Sanitize(messages []Message, opts Options) (*Result, error) {
	return sanitize.Sanitize(messages, opts)
}

// ContextError is the error OpenClaw stops with for ctx, if any.
func ContextError(ctx *transcript.Context) error { return sanitize.ContextError(ctx) }

// ModelSnapshotsOnBranch returns the model snapshots of a branch's entries.
func ModelSnapshotsOnBranch(entries [][]byte) ([]ModelSnapshot, error) {
	return sanitize.ModelSnapshotsOnBranch(entries)
}
