package transcript

import "testing"

// Many findings of one rule are one group with its count and first lines;
// errors come first whatever their lines.
func TestGroupFindings(t *testing.T) {
	var fs []Finding
	for l := int64(10); l < 10+5400; l++ {
		fs = append(fs, Finding{Rule: "empty-assistant-error", Severity: SevWarning, Line: l})
	}
	fs = append(fs, Finding{Rule: "missing-tool-result", Severity: SevInfo}, Finding{Rule: "parent-cycle", Severity: SevError, Line: 90000})
	gs := GroupFindings(fs, 3)
	if len(gs) != 3 || gs[0].Rule != "parent-cycle" || gs[1].Rule != "empty-assistant-error" || gs[2].Rule != "missing-tool-result" {
		t.Fatalf("groups %+v", gs)
	}
	if gs[1].Count != 5400 || gs[1].Where() != "lines 10, 11, 12, …" {
		t.Errorf("count %d, where %q", gs[1].Count, gs[1].Where())
	}
	if gs[0].Where() != "line 90000" || gs[2].Where() != "no line" {
		t.Errorf("%q %q", gs[0].Where(), gs[2].Where())
	}
}
