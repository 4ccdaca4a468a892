package oracletest

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
)

// SyntheticStamp96 is the prefix 2026.9.6's LLM boundary puts before the
// text of a user turn whose time is SyntheticTime, in UTC: "[Wed 1969-12-31
// 23:52 UTC] ". OpenClaw stamps such a turn (a synthetic one it made itself)
// with its own Date.now().
const SyntheticStamp96 = "[Wed 1969-12-31 23:52 UTC] " // SyntheticTime in UTC (the test checks it)

// stampRE is any prefix 9.6 stamps a user turn with ("[Www YYYY-MM-DD HH:MM
// ZONE] ").
var stampRE = lazyre.New(`^\[[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2} [^\]]+\] `)

// Difference96 is Difference for 2026.9.6's answers: a string oc starts
// with SyntheticStamp96 also matches the oracle's string with any stamp
// before the same text (the time of a synthetic turn), as a "timestamp"
// equal to SyntheticTime matches any.
func Difference96(got, want []byte) string {
	g, err := jsjson.Parse(got)
	if err != nil {
		return Difference(got, want)
	}
	w, err := jsjson.Parse(want)
	if err != nil {
		return Difference(got, want)
	}
	g = restamp(g, w)
	return diff(g, w, "$", "")
}

// restamp returns g with every string that starts with SyntheticStamp96
// given the stamp of the string at the same place in w, when w's has one.
func restamp(g, w any) any {
	switch x := g.(type) {
	case string:
		ws, ok := w.(string)
		if !ok || !strings.HasPrefix(x, SyntheticStamp96) {
			return g
		}
		if p := stampRE().FindString(ws); p != "" {
			return p + strings.TrimPrefix(x, SyntheticStamp96)
		}
	case []any:
		wa, ok := w.([]any)
		if !ok {
			return g
		}
		out := make([]any, len(x))
		for i := range x {
			if i < len(wa) {
				out[i] = restamp(x[i], wa[i])
			} else {
				out[i] = x[i]
			}
		}
		return out
	case *jsjson.Object:
		wo, ok := w.(*jsjson.Object)
		if !ok {
			return g
		}
		out := &jsjson.Object{}
		for _, k := range x.Keys() {
			v, _ := x.Get(k)
			if wv, ok := wo.Get(k); ok {
				v = restamp(v, wv)
			}
			out.Set(k, v)
		}
		return out
	}
	return g
}
