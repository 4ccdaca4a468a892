package sanitize

import (
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/imageops"
)

// Rule names of the steps every release runs the same way, in pipeline
// order (research/replay-policy.md §3): each names the OpenClaw function the
// step reproduces. A release package names the steps it has its own way.
const (
	RuleImages                  = "sanitizeSessionMessagesImages"
	RuleDropReasoning           = "dropReasoningFromHistory"
	RuleDropThinking            = "dropThinkingBlocks"
	RuleOpenAIFunctionCallPairs = "downgradeOpenAIFunctionCallReasoningPairs"
	RuleToolResultDetails       = "stripToolResultDetails"
	RuleStaleUsage              = "stripStaleAssistantUsageBeforeLatestCompaction"
	RuleProviderHook            = "provider.sanitizeReplayHistory"
	RuleGoogleTurnOrdering      = "sanitizeGoogleTurnOrdering"
	RuleGeminiTurns             = "validateGeminiTurns"
)

// Stages of the pipeline output.
const (
	StageSanitize = "sanitize" // sanitizeSessionHistory
	StageValidate = "validate" // validateReplayTurns
	StageLimit    = "limit"    // heartbeat filter + second pairing repair
)

// Change kinds, for summaries (`oc replay --provider all`).
const (
	KindMessageDropped  = "message-dropped"
	KindMessageInserted = "message-inserted"
	KindMessagesMerged  = "messages-merged"
	KindBlockDropped    = "block-dropped"
	KindContentChanged  = "content-changed"
	KindIDRewritten     = "id-rewritten"
	KindSyntheticResult = "synthetic-result"
	KindResultMoved     = "result-moved"
	KindMetadataChanged = "metadata-changed"
)

// Change is one thing a rule changed.
type Change struct {
	Stage string `json:"stage"`
	Rule  string `json:"rule"`
	// Index is the message's position in the list the rule was given.
	Index int    `json:"index"`
	Kind  string `json:"kind"`
	What  string `json:"what"`
}

// ChangeLog collects the changes of the rule currently running.
type ChangeLog struct {
	stage string
	rule  string
	list  []Change
}

// NewChangeLog is a change log for the changes of a rule run outside a
// pipeline's steps, recorded under stage and rule.
func NewChangeLog(stage, rule string) *ChangeLog { return &ChangeLog{stage: stage, rule: rule} }

// Add records a change of kind to message index under the log's stage and
// rule; what is format with args (fmt.Sprintf).
func (l *ChangeLog) Add(index int, kind, format string, args ...any) {
	if l == nil {
		return
	}
	what := format
	if len(args) > 0 || strings.IndexByte(format, '%') >= 0 {
		what = fmt.Sprintf(format, args...)
	}
	l.list = append(l.list, Change{Stage: l.stage, Rule: l.rule, Index: index, Kind: kind, What: what})
}

// CountNoun is n with the noun in the right number: "1 message",
// "2 messages", "0 results".
func CountNoun(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// AddText is Add with the text already made (rules that log the same text
// for many messages make it once).
func (l *ChangeLog) AddText(index int, kind, what string) {
	if l == nil {
		return
	}
	l.list = append(l.list, Change{Stage: l.stage, Rule: l.rule, Index: index, Kind: kind, What: what})
}

// ModelSnapshot is the data of the transcript's latest "model-snapshot"
// custom entry: the route the history was last sent on.
type ModelSnapshot struct {
	Provider string `json:"provider"`
	ModelAPI string `json:"modelApi"`
	ModelID  string `json:"modelId"`
	// Timestamp is the snapshot's time in ms when it is a finite number
	// (2026.9.6 dates a model switch by it).
	Timestamp *float64 `json:"timestamp,omitempty"`
}

// Default image limits (agents.defaults.imageMaxDimensionPx, DEFAULT_IMAGE_MAX_BYTES).
const (
	DefaultImageMaxDimensionPx = imageops.DefaultMaxSide
	DefaultImageMaxBytes       = imageops.DefaultMaxBytes
)

// Options configures a pipeline run (Pipeline.Run).
type Options struct {
	// Release picks the pipeline replay.Sanitize runs (zero: 2026.5.6);
	// Pipeline.Run does not read it.
	Release  policy.Release
	Provider string
	API      string
	Model    string
	// Policy overrides the table's policy for the route when non-nil.
	Policy *policy.Policy
	// ImageMaxDimensionPx is agents.defaults.imageMaxDimensionPx (0: 1200).
	ImageMaxDimensionPx int
	// ImageMaxBytes is the decoded-size limit (0: 5 MiB).
	ImageMaxBytes int
	// AllowedToolNames is the live tool registry (nil: no allow-list, as the
	// oracle runs).
	AllowedToolNames []string
	// PriorSnapshot is the transcript's last model snapshot. nil reproduces
	// the oracle, which runs without a session manager: no model switch is
	// ever detected.
	PriorSnapshot *ModelSnapshot
	// ModelSnapshots are the model snapshots on the session's active branch,
	// in order (sanitize96.ModelSnapshotsOnBranch): 2026.9.6 reads them all,
	// to date the latest model switch. nil: none (2026.5.6 ignores it).
	ModelSnapshots []ModelSnapshot
	// Now gives Date.now() in milliseconds for synthetic messages (nil: the clock).
	Now func() int64
}

// Result is the pipeline's output: the three stage lists of the oracle's
// `sanitize` mode and what changed on the way.
type Result struct {
	Policy    policy.Policy
	Sanitized []Message
	Validated []Message
	// Limited is what the model is handed (the oracle's sanitize.limited).
	Limited []Message
	Changes []Change
}

// Run is the state one pipeline run threads through its steps.
type Run struct {
	// Opts is the run's options, Policy the route's replay policy.
	Opts     Options
	Policy   policy.Policy
	log      ChangeLog
	now      int64
	nowValid bool
	// Values a release's Prepare derives once for its steps.
	OwnedThinking bool // shouldAllowProviderOwnedThinkingReplay
	Responses     bool // the OpenAI Responses family
	ModelChanged  bool // the route differs from the last model snapshot
	// State holds the values a release's Prepare derives for its own steps
	// only (nil: none); the release's steps know its type.
	State any
}

// Log is the run's change log, recording under rule from now on.
func (r *Run) Log(rule string) *ChangeLog {
	r.log.rule = rule
	return &r.log
}

// NowMillis is Date.now(), taken once per run so that every synthetic
// message of one run carries the same time.
func (r *Run) NowMillis() int64 {
	if !r.nowValid {
		if r.Opts.Now != nil {
			r.now = r.Opts.Now()
		} else {
			r.now = time.Now().UnixMilli()
		}
		r.nowValid = true
	}
	return r.now
}

// Run runs the release's pipeline on the context messages (the active
// branch as model messages): sanitizeSessionHistory, validateReplayTurns,
// then what the embedded runner does before the model call. The input is
// never modified.
func (pipe Pipeline) Run(messages []Message, opts Options) (*Result, error) {
	pol := pipe.Policy(policy.Route{Provider: opts.Provider, API: opts.API, Model: opts.Model})
	if opts.Policy != nil {
		pol = *opts.Policy
	}
	r := &Run{Opts: opts, Policy: pol}
	res := &Result{Policy: pol}
	for i, m := range messages {
		if m == nil {
			// JSON null, or a message entry without "message" (undefined):
			// OpenClaw's sanitizer reads msg.role and throws.
			return nil, &OpenClawFailure{What: fmt.Sprintf("context message %d is null or undefined: OpenClaw %s's sanitizer throws a TypeError on it (reading its role), so it sends nothing", i, pipe.Release)}
		}
	}
	if pipe.Prepare != nil {
		pipe.Prepare(r)
	}
	var err error
	msgs := messages
	for _, st := range []struct {
		stage string
		steps []Step
		out   *[]Message
	}{{StageSanitize, pipe.Sanitize, &res.Sanitized}, {StageValidate, pipe.Validate, &res.Validated}, {StageLimit, pipe.Limit, &res.Limited}} {
		r.log.stage = st.stage
		if msgs, err = r.runSteps(st.steps, msgs); err != nil {
			return nil, err
		}
		*st.out = msgs
	}
	res.Changes = r.log.list
	return res, nil
}

// OpenClawFailure is an input on which OpenClaw itself fails (throws, or
// never returns): there is no payload to show.
type OpenClawFailure struct{ What string }

// Error is the failure's description.
func (e *OpenClawFailure) Error() string { return e.What }
