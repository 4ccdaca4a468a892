package cireport

import (
	"encoding/json"
	"io"
)

// SARIF 2.1.0 (OASIS): the members oc fills. The schema is
// testdata/sarif-schema-2.1.0.json; the tests validate every document
// against it.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool         `json:"tool"`
	AutomationDetails *sarifAutomation  `json:"automationDetails,omitempty"`
	Invocations       []sarifInvocation `json:"invocations"`
	Results           []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string     `json:"id"`
	ShortDescription *sarifText `json:"shortDescription,omitempty"`
	FullDescription  *sarifText `json:"fullDescription,omitempty"`
	Help             *sarifText `json:"help,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool `json:"executionSuccessful"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int64 `json:"startLine"`
}

// sarifSchemaURI is the $schema a SARIF 2.1.0 log names.
const sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifLevel maps a Level to SARIF's: error, warning, note.
func sarifLevel(l Level) string {
	switch l {
	case LevelError:
		return "error"
	case LevelWarning:
		return "warning"
	}
	return "note"
}

// WriteSARIF writes r as a SARIF 2.1.0 log with one run: the driver "oc"
// (r.Tool) with one rule per rule id the results use (their help text from
// r.Rules), and one result per Result, its location the file relative to
// r.BaseDir and its line. A run that could not check some file (Errored)
// says so in invocations[0].executionSuccessful (false).
func WriteSARIF(w io.Writer, r *Report) error {
	rules, index := usedRules(r)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: r.Tool, Version: r.Version,
			InformationURI: "https://github.com/openclaw-tools/oc", Rules: make([]sarifRule, 0, len(rules))}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: !r.incomplete()}},
		Results:     make([]sarifResult, 0, len(r.Results)),
	}
	if r.Command != "" {
		run.AutomationDetails = &sarifAutomation{ID: r.Command + "/"}
	}
	for _, rl := range rules {
		sr := sarifRule{ID: rl.ID}
		if rl.Short != "" {
			sr.ShortDescription = &sarifText{Text: rl.Short}
		}
		if rl.Help != "" {
			sr.FullDescription = &sarifText{Text: rl.Help}
			sr.Help = &sarifText{Text: rl.Help}
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
	}
	for _, res := range r.Results {
		sr := sarifResult{RuleID: res.RuleID, RuleIndex: index[res.RuleID], Level: sarifLevel(res.Level), Message: sarifText{Text: res.Message}}
		if sr.Message.Text == "" {
			sr.Message.Text = res.RuleID // SARIF requires a message
		}
		if res.Path != "" {
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifactLocation{URI: fileURI(r.BaseDir, res.Path)}}}
			if res.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: res.Line}
			}
			sr.Locations = []sarifLocation{loc}
		}
		run.Results = append(run.Results, sr)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}})
}

// usedRules are the rules the results name, in the order of r.Rules (then
// of first use for a rule r.Rules lacks, described by its id alone), and
// each one's index in that list.
func usedRules(r *Report) ([]Rule, map[string]int) {
	used := map[string]bool{}
	for _, res := range r.Results {
		used[res.RuleID] = true
	}
	var out []Rule
	index := map[string]int{}
	add := func(rl Rule) {
		if _, dup := index[rl.ID]; dup || !used[rl.ID] {
			return
		}
		index[rl.ID] = len(out)
		out = append(out, rl)
	}
	for _, rl := range r.Rules {
		add(rl)
	}
	for _, res := range r.Results {
		add(Rule{ID: res.RuleID})
	}
	return out, index
}

// incomplete reports whether some file could not be checked.
func (r *Report) incomplete() bool {
	for _, f := range r.Files {
		if f.Outcome == Errored {
			return true
		}
	}
	return false
}
