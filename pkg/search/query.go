// Package search finds the sessions whose messages say something: it reads
// each session's rows (both eras, archives too), keeps the lines whose raw
// bytes may hold a match (prefilter), decodes those and matches the decoded
// text of their messages line by line: a match inside an escaped JSON
// string is found, one in a key name or in JSON punctuation is not.
// Sessions are read in parallel; results come out in the sessions' order.
package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Query is what to look for.
type Query struct {
	Pattern    string
	Regexp     bool // Pattern is a regular expression (RE2 syntax), else a fixed string
	IgnoreCase bool
	// Filters: only matches in messages of this role (user, assistant,
	// toolResult, custom, ... or compaction, branchSummary), in the calls
	// or results of this tool, or under this model (a case-insensitive part
	// of "provider/model").
	Role, Tool, Model string
}

// matcher is a compiled query.
type matcher struct {
	q  Query
	re *regexp.Regexp
	// anchor is a run of the pattern's bytes every raw line holding a match
	// holds too, unless the line spells characters with JSON escapes
	// (checked apart); nil: every line is decoded.
	anchor []byte
	// anchorLower: anchor is lower-case ASCII matched without case.
	anchorLower bool
	anchorASCII bool
	anchorSlash bool
	model       string
}

// Compile checks a query and prepares its prefilter.
func Compile(q Query) (*matcher, error) {
	expr := q.Pattern
	if !q.Regexp {
		expr = regexp.QuoteMeta(expr)
	}
	if q.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", q.Pattern, unwrapSyntax(err))
	}
	m := &matcher{q: q, re: re, model: strings.ToLower(q.Model)}
	literal := q.Pattern
	if q.Regexp {
		literal = requiredLiteral(q.Pattern)
	}
	m.setAnchor(literal)
	return m, nil
}

func unwrapSyntax(err error) error {
	if se, ok := err.(*syntax.Error); ok {
		return fmt.Errorf("%s: %s", se.Code, se.Expr)
	}
	return err
}

// requiredLiteral is a literal every match of a regular expression holds:
// the longest literal among the top-level concatenation's parts (case
// folded literals are skipped: they hold no fixed bytes).
func requiredLiteral(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	re = re.Simplify()
	best := ""
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(string(r.Rune)) > len(best) {
			best = string(r.Rune)
		}
	}
	switch re.Op {
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			consider(sub)
		}
	case syntax.OpCapture:
		if len(re.Sub) == 1 {
			consider(re.Sub[0])
		}
	default:
		consider(re)
	}
	return best
}

// setAnchor picks the longest run of literal's bytes that JSON writes as
// they are (printable, not '"' or '\'): a raw line without it can only
// match through escapes, which prefilter checks for.
func (m *matcher) setAnchor(literal string) {
	best, start := "", -1
	flush := func(end int) {
		if start >= 0 && end-start > len(best) {
			best = literal[start:end]
		}
		start = -1
	}
	for i := 0; i < len(literal); i++ {
		c := literal[i]
		plain := c >= 0x20 && c != '"' && c != '\\' && c != 0x7f
		if m.q.IgnoreCase && c >= utf8.RuneSelf {
			plain = false // case folding of non-ASCII letters changes their bytes
		}
		if plain {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(literal))
	if m.q.IgnoreCase {
		// 'k' and 's' fold to non-ASCII letters too (U+212A, U+017F)
		if strings.ContainsAny(strings.ToLower(best), "ks") {
			best = longestWithout(best, "kKsS")
		}
		best = strings.ToLower(best)
		m.anchorLower = true
	}
	// a lone character anchors almost nothing: decode instead
	if len(best) < 2 {
		return
	}
	m.anchor = []byte(best)
	m.anchorASCII = true
	for i := 0; i < len(best); i++ {
		if best[i] >= utf8.RuneSelf {
			m.anchorASCII = false
		}
	}
	m.anchorSlash = strings.Contains(best, "/")
}

// longestWithout is the longest run of s without any byte of cut.
func longestWithout(s, cut string) string {
	best := ""
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(cut, r) }) {
		if len(part) > len(best) {
			best = part
		}
	}
	return best
}

// mayMatch is the prefilter: false only when no decoded string of the raw
// line can match. buf is scratch room for a lower-cased copy.
func (m *matcher) mayMatch(line []byte, buf *[]byte) bool {
	if m.anchor == nil {
		return true
	}
	hay := line
	if m.anchorLower {
		*buf = lowerASCII((*buf)[:0], line)
		hay = *buf
	}
	if bytes.Contains(hay, m.anchor) {
		return true
	}
	// Characters of the anchor written as escapes: \u00XX for ASCII, any
	// \uXXXX for the others, \/ for a slash.
	if i := bytes.Index(line, []byte(`\u`)); i >= 0 {
		if !m.anchorASCII || bytes.Contains(line[i:], []byte(`\u00`)) {
			return true
		}
	}
	return m.anchorSlash && bytes.Contains(line, []byte(`\/`))
}

func lowerASCII(dst, s []byte) []byte {
	for _, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// modelMatches reports whether a provider/model is the one --model asks for.
func (m *matcher) modelMatches(provider, model string) bool {
	if m.model == "" {
		return true
	}
	full := strings.ToLower(provider + "/" + model)
	return strings.Contains(full, m.model)
}
