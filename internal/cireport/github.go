package cireport

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/cli"
)

// WriteGitHub writes r as GitHub Actions workflow commands, one a result:
//
//	::error file=F,line=N,title=RULE::message
//
// (warning and notice for the other levels), F relative to r.BaseDir (the
// workspace when oc runs there). Values are escaped as GitHub's toolkit
// does (@actions/core's command.ts): in the message "%", CR and LF become
// %25, %0D and %0A; in a property also ":" and "," (%3A, %2C). Any other
// control character is written visibly (cli.Safe), never raw. r.Summary
// follows as a plain log line.
func WriteGitHub(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for _, res := range r.Results {
		bw.WriteString("::" + githubLevel(res.Level))
		sep := " "
		prop := func(k, v string) {
			bw.WriteString(sep + k + "=" + escapeProperty(v))
			sep = ","
		}
		if res.Path != "" {
			p, _ := displayPath(r.BaseDir, res.Path)
			prop("file", p)
			if res.Line > 0 {
				prop("line", strconv.FormatInt(res.Line, 10))
			}
		}
		if res.RuleID != "" {
			prop("title", res.RuleID)
		}
		bw.WriteString("::" + escapeData(res.Message) + "\n")
	}
	if r.Summary != "" {
		s := escapeData(r.Summary)
		if strings.HasPrefix(s, "::") {
			s = " " + s // a plain line, never a command
		}
		bw.WriteString(s + "\n")
	}
	return bw.Flush()
}

// githubLevel is the workflow command of a level: error, warning, notice.
func githubLevel(l Level) string {
	switch l {
	case LevelError:
		return "error"
	case LevelWarning:
		return "warning"
	}
	return "notice"
}

// escapeData is @actions/core's escapeData (%, CR, LF), then cli.Safe for
// the other control characters.
func escapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	s = strings.ReplaceAll(s, "\n", "%0A")
	return cli.Safe(s)
}

// escapeProperty is @actions/core's escapeProperty: escapeData and ":", ",".
func escapeProperty(s string) string {
	s = escapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}
