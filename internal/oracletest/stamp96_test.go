package oracletest

import "testing"

func TestDifference96Stamps(t *testing.T) {
	if SyntheticStamp96 != "[Wed 1969-12-31 23:52 UTC] " {
		t.Fatalf("SyntheticStamp96 = %q", SyntheticStamp96)
	}
	oc := []byte(`{"messages":[{"role":"user","content":"[Wed 1969-12-31 23:52 UTC] (session bootstrap)","timestamp":-424242}]}`)
	oracle := []byte(`{"messages":[{"role":"user","content":"[Tue 2026-12-01 02:54 UTC] (session bootstrap)","timestamp":1796093640000}]}`)
	if d := Difference(oc, oracle); d == "" {
		t.Fatal("Difference ignores the stamp: the test would prove nothing")
	}
	if d := Difference96(oc, oracle); d != "" {
		t.Errorf("a synthetic turn's stamp: %s", d)
	}
	for _, c := range []struct{ name, oc, oracle string }{
		{"other text", `["[Wed 1969-12-31 23:52 UTC] hi"]`, `["[Tue 2026-12-01 02:54 UTC] ho"]`},
		{"a real stamp", `["[Fri 2026-01-30 08:07 UTC] hi"]`, `["[Tue 2026-12-01 02:54 UTC] hi"]`},
		{"no stamp in the oracle's", `["[Wed 1969-12-31 23:52 UTC] hi"]`, `["hi"]`},
		{"key order", `[{"b":1,"a":2}]`, `[{"a":2,"b":1}]`},
	} {
		if d := Difference96([]byte(c.oc), []byte(c.oracle)); d == "" {
			t.Errorf("%s: no difference found", c.name)
		}
	}
}
