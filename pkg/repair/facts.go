package repair

import (
	"bytes"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// facts are what the rules decide of one entry on its own, with no other
// entry involved: whether its role or content needs a fix, the hashes of its
// id, the tool calls and results it holds.
// Where lines are parsed in parallel, each worker works them out for its
// lines; the ordered part of planning, which holds what does involve other
// entries (the tree, repeated ids, tool results), only reads them.
type facts struct {
	ready      bool
	all        bool // worked out under RuleSetAll
	msgObject  bool // a message entry whose message is an object (or array)
	compaction bool
	roleFix    EntryFix // fixInvalidRole (RuleSetAll)
	// fixContent's answer: the entry's bytes, whether they changed, the rules
	out     []byte
	changed bool
	hits    []hit
	// the id when it is a JSON string (idOK): its text hashed (idRaw), and
	// trimmed (idTrim; idTrimOK: not blank)
	idOK, idTrimOK bool
	idRaw, idTrim  uint64
	// the id's literal (a string id of at most len(idCopy) bytes; idCopyLen
	// 0: none, or longer), copied where the line is parsed: the ordered
	// stage keeps the last surviving id without reaching into the line
	idCopy    [40]byte
	idCopyLen uint8
	// toolResultID, hashed
	resultOK bool
	result   uint64
	// the tool-result rules' view of a message entry
	mirror, code, responses bool
	calls                   []toolCall // of a code-mode or responses candidate
	// imageHint: the content may hold an image block; blankHint: a blank
	// text block; hintsKnown: fromTape found both out from the tape (else
	// prepare guesses the image from the text, and the blank text rule walks
	// it)
	imageHint, blankHint, hintsKnown bool
	// sum hashes the trimmed entry bytes (only the exact repeated-id pass
	// needs it: sumOK)
	sum   uint64
	sumOK bool
}

// prepare works out e's facts under the rule set (all: RuleSetAll) the
// first time it is asked for that set, and returns them.
func (e *Entry) prepare(all bool) *facts {
	f := &e.f
	if f.ready && f.all == all {
		return f
	}
	if f.ready {
		// asked again under the other rule set (an entry fresh from fromTape
		// or ParseEntry has nothing else set)
		*f = facts{imageHint: f.imageHint, blankHint: f.blankHint, hintsKnown: f.hintsKnown}
	}
	f.ready, f.all = true, all
	if id, ok := strView(e.ID); ok {
		t := jsonl.TrimSpace(id)
		f.idRaw, f.idOK = hashBytes(id), true
		f.idTrim, f.idTrimOK = hashBytes(t), len(t) > 0
		if len(e.ID) <= len(f.idCopy) {
			f.idCopyLen = uint8(copy(f.idCopy[:], e.ID))
		}
	}
	if !f.hintsKnown {
		// a block of type "image" says "image", or spells it with \u escapes
		f.imageHint = jsonl.ValueKind(e.Content) == '[' &&
			(bytes.Contains(e.Content, []byte(`"image"`)) || bytes.Contains(e.Content, []byte(`\u`)))
	}
	if !e.Object {
		f.out = e.B
		return f
	}
	f.msgObject = e.IsMessage() && e.messageIsObject()
	f.compaction = jsonl.StringIs(e.Type, "compaction")
	f.out, f.changed, f.hits = fixContent(e, e.B, all)
	if !all {
		return f
	}
	f.roleFix = fixInvalidRole(e)
	if id, ok := e.toolResultID(); ok {
		f.result, f.resultOK = hashBytes(id), true
	}
	if f.msgObject {
		f.mirror = e.isDeliveryMirror()
		f.code, f.responses = e.isCodeModeCandidate(), e.isResponsesMessageToolCandidate()
		if f.code || f.responses {
			f.calls = toolCalls(e.Content)
		}
	}
	return f
}

// lineSum hashes the entry's trimmed bytes (once).
func (f *facts) lineSum(e *Entry) uint64 {
	if !f.sumOK {
		f.sum, f.sumOK = hashBytes(jsonl.TrimSpace(e.B)), true
	}
	return f.sum
}

// hashStrValue hashes the decoded text of a JSON string value.
func hashStrValue(v []byte) (uint64, bool) {
	t, ok := strView(v)
	if !ok {
		return 0, false
	}
	return hashBytes(t), true
}
