package upgrade

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/openclaw-tools/oc/internal/jsjson"
)

// 2026.9.6's import stores every event as JSON.stringify(JSON.parse(line))
// (createTranscriptEventReader, then the stage's rows), not the line as
// written. For most lines that is the same text; where it is not, what the
// line said and what SQLite holds differ, and no later export gives the
// original back (the archived original keeps it). Doctor names these (info:
// OpenClaw reads the stored value either way):
//   - a key written twice in one object: JSON.parse keeps the last value
//     ({"content":"first secret","content":"second"} stores "second");
//   - a number beyond float64 (1e400): Infinity, which JSON.stringify
//     writes as null;
//   - a number float64 cannot hold exactly as written: rounded
//     (12345678901234567890123 is stored 1.2345678901234568e+22);
//   - -0: stored 0.
//
// Checked with the 9.6 oracle's import (TestReserialisedOracle).

// Rewrite kinds.
const (
	RewriteDuplicateKey = "duplicate-key"
	RewriteOverflow     = "number-overflow"
	RewriteRounded      = "number-rounded"
	RewriteNegZero      = "negative-zero"
)

// Rewrite is one change 9.6's import makes to a line it stores.
type Rewrite struct {
	Line   int64  `json:"line"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// maxRewrites is how many rewrites a file's prediction lists (Rewrites
// counts all).
const maxRewrites = 20

// rewrites finds what JSON.stringify(JSON.parse(text)) changes in text, to
// the tape's depth (deeper containers are not looked into). The common
// line (no repeated key, no long or odd number) costs one tape parse.
func rewrites(tp *jsjson.Tape, text []byte) []Rewrite {
	tp.MaxDepth = jsjson.MaxTapeDepth
	if !tp.Parse(text) || tp.Unrecorded {
		return nil
	}
	var out []Rewrite
	nodes := tp.Nodes
	for i := range nodes {
		n := &nodes[i]
		switch {
		case n.Kind == '{' && n.Flags&jsjson.Pruned == 0:
			// its members: from i+1, sibling to sibling, until past its end
			var seen map[string]bool
			for j := i + 1; j < len(nodes) && nodes[j].Start < n.End; j = int(nodes[j].Next) {
				k := string(nodes[j].KeyText(text))
				if seen == nil {
					seen = map[string]bool{}
				}
				if seen[k] {
					out = append(out, Rewrite{Kind: RewriteDuplicateKey, Detail: fmt.Sprintf("key %s written twice in one object: the last value is stored, the first is dropped", strconv.Quote(printable(k, 40)))})
				}
				seen[k] = true
				if nodes[j].Next <= int32(j) {
					break
				}
			}
		case n.Kind == '-' || n.Kind >= '0' && n.Kind <= '9':
			if r, ok := numberRewrite(n.Value(text)); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// numberRewrite says how JSON.stringify(JSON.parse(lit)) changes the
// number literal lit, if it does.
func numberRewrite(lit []byte) (Rewrite, bool) {
	s := string(lit)
	// the common literals: short integers without sign problems
	if len(lit) <= 15 && !bytes.ContainsAny(lit, ".eE") && !(lit[0] == '-' && allZero(lit[1:])) {
		return Rewrite{}, false
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && math.IsInf(f, 0):
		return Rewrite{Kind: RewriteOverflow, Detail: fmt.Sprintf("number %s is beyond what JavaScript holds: stored as null", printable(s, 40))}, true
	case f == 0 && math.Signbit(f):
		return Rewrite{Kind: RewriteNegZero, Detail: fmt.Sprintf("number %s is stored as 0", printable(s, 40))}, true
	}
	shortest := strconv.FormatFloat(f, 'g', -1, 64)
	want, ok1 := new(big.Rat).SetString(s)
	got, ok2 := new(big.Rat).SetString(shortest)
	if !ok1 || !ok2 || want.Cmp(got) == 0 {
		return Rewrite{}, false // the same number, at most spelled otherwise (1.0, 1e2)
	}
	return Rewrite{Kind: RewriteRounded, Detail: fmt.Sprintf("number %s is stored rounded, as %s", printable(s, 40), jsNumber(f))}, true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != '0' && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' {
			return false
		}
	}
	return true
}

// jsNumber is JSON.stringify of a finite float64.
func jsNumber(f float64) string {
	b, err := jsjson.Marshal(f)
	if err != nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(b)
}

// RewriteText is doctor's upgrade-reserialised finding for s: what the
// import changes in the lines it stores, the first few named.
func RewriteText(s Session) string {
	r := s.Result
	var b bytes.Buffer
	fmt.Fprintf(&b, "2026.9.6's import stores %s re-serialised, and %d %s of what the file says is not what SQLite will hold (the archived original keeps it; OpenClaw reads the stored value): ",
		printable(s.SessionKey, 80), r.RewriteCount, plural(r.RewriteCount, "value", "values"))
	for i, rw := range r.Rewrites {
		if i == 3 {
			fmt.Fprintf(&b, "; …")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "line %d: %s", rw.Line, rw.Detail)
	}
	return b.String()
}
