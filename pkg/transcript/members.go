package transcript

// LineMembers are the raw JSON members of one parsed line (nil: absent) that
// OpenClaw 2026.9.6's navigation rules read, handed out by AnalyzeBytesEach
// so that a caller applying those rules need not walk the line again. The
// slices point into the analysed text.
type LineMembers struct {
	Line   int64 // line number in the analysed text
	Object bool  // the line is a JSON object (it may still lack every member)
	Type, ID, ParentID, TargetID, AppendParentID, AppendMode, FirstKeptEntryID,
	Summary, Reason, TokensBefore, Message []byte
	// MessageMembers: the analyzer decoded Message (an object) and its
	// members below are set; false when it did not (then decode Message).
	MessageMembers                                           bool
	Role, Content, ExcludeFromContext, ToolCallID, ToolUseID []byte
}

func (l *LineMembers) setTop(e *rawEntry) {
	l.Type, l.ID, l.ParentID, l.TargetID = e.Type, e.ID, e.ParentID, e.TargetID
	l.AppendParentID, l.AppendMode, l.FirstKeptEntryID = e.AppendParentID, e.AppendMode, e.FirstKeptEntryID
	l.Summary, l.Reason, l.TokensBefore, l.Message = e.Summary, e.Reason, e.TokensBefore, e.Message
}

func (l *LineMembers) setMessage(m *rawMessage) {
	l.MessageMembers = true
	l.Role, l.Content, l.ExcludeFromContext, l.ToolCallID, l.ToolUseID = m.Role, m.Content, m.Excluded, m.ToolCallID, m.ToolUseID
}

// AnalyzeBytesEach is Analyze of a transcript held in memory (read in place,
// not copied; data must not change during the call), also calling each
// (when not nil), in order, for every line that parses as JSON (JSON.parse's
// rules; blank and malformed lines are left out). each must not keep the
// LineMembers or its slices.
func AnalyzeBytesEach(data []byte, each func(*LineMembers)) (*Summary, error) {
	a := newAnalyzer()
	a.each = each
	ix, err := scanBytes(data, a.scanOptions(int64(len(data))))
	return a.result(ix, err)
}
