package conversation_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/store"
)

// forked is a transcript with a fork at b: the active branch (last entry)
// goes a-b-d-e, the other a-b-c.
const forked = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"user","content":"first question"}}
{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","provider":"anthropic","model":"claude","content":[{"type":"text","text":"answer"},{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"/x"}}]}}
{"type":"message","id":"c","parentId":"b","message":{"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"old result"}]}}
not json at all
{"type":"message","id":"d","parentId":"b","message":{"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"new result"}]}}
{"type":"message","id":"e","parentId":"d","message":{"role":"assistant","stopReason":"error","errorMessage":"overloaded","content":[]}}
`

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func ids(t *testing.T, c *conversation.Conversation, sel conversation.Selection) string {
	t.Helper()
	var out []string
	err := c.Items(context.Background(), sel, func(it *conversation.Item) error {
		s := it.ID
		if it.Kind == conversation.KindMalformed {
			s = "!"
		}
		if it.Children > 1 {
			s += "<" + strings.Join(it.ChildIDs, ",") + ">"
		}
		if sel.All && it.Active {
			s += "*"
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func open(t *testing.T, ses store.Session) *conversation.Conversation {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := conversation.Open(context.Background(), st, ses, strings.NewReader(forked))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestBranchesAndWindows(t *testing.T) {
	c := open(t, store.Session{Era: store.EraJSONL, Path: write(t, "s.jsonl", forked)})
	for _, tc := range []struct {
		sel  conversation.Selection
		want string
	}{
		{conversation.Selection{}, "a b<c,d> d e"},
		{conversation.Selection{Branch: "c"}, "a b<c,d> c"},
		{conversation.Selection{Branch: "4"}, "a b<c,d> c"}, // by line
		{conversation.Selection{All: true}, "a* b<c,d>* c ! d* e*"},
		{conversation.Selection{From: "b", To: "d"}, "b<c,d> d"},
		{conversation.Selection{From: "3"}, "b<c,d> d e"},
		{conversation.Selection{All: true, From: "4", To: "6"}, "c ! d*"},
	} {
		if got := ids(t, c, tc.sel); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.sel, got, tc.want)
		}
	}
	if err := c.Items(context.Background(), conversation.Selection{Branch: "zz"}, func(*conversation.Item) error { return nil }); !errors.Is(err, conversation.ErrNoSuchEntry) {
		t.Errorf("unknown branch: %v", err)
	}
	leaves := c.Leaves()
	if len(leaves) != 2 || leaves[0].ID != "c" || leaves[1].ID != "e" || !leaves[1].Active || leaves[0].Depth != 3 {
		t.Errorf("leaves %+v", leaves)
	}
}

func TestItemsCarryWhatAReaderNeeds(t *testing.T) {
	c := open(t, store.Session{Era: store.EraJSONL, Path: write(t, "s.jsonl", forked)})
	var items []*conversation.Item
	_ = c.Items(context.Background(), conversation.Selection{}, func(it *conversation.Item) error {
		items = append(items, it)
		return nil
	})
	if len(items) != 4 {
		t.Fatalf("%d items", len(items))
	}
	if b := items[1]; b.Model != "claude" || b.Provider != "anthropic" || len(b.Blocks) != 2 || b.Blocks[1].Name != "read" {
		t.Errorf("assistant %+v", b)
	}
	if r := items[2]; r.ToolName != "read" || !r.Paired || r.Blocks[0].Text != "new result" {
		t.Errorf("result not paired with its call: %+v", r)
	}
	if e := items[3]; !e.IsFailedTurn() || e.ErrorMessage != "overloaded" {
		t.Errorf("failed turn %+v", e)
	}
	if items[0].Time.IsZero() {
		t.Errorf("no time on the user message")
	}
}

// TestCompressedAndStdin: a .gz transcript and stdin are read through the
// spool, which Close removes.
func TestCompressedAndStdin(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(forked))
	zw.Close()
	for _, ses := range []store.Session{
		{Era: store.EraJSONL, Path: write(t, "s.jsonl.gz", gz.String())},
		{Era: store.EraJSONL, Path: "-"},
	} {
		st, _ := store.Open(t.TempDir(), store.Options{})
		c, err := conversation.Open(context.Background(), st, ses, strings.NewReader(forked))
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(t, c, conversation.Selection{}); got != "a b<c,d> d e" {
			t.Errorf("%s: %q", ses.Path, got)
		}
		spool := c.Path()
		if spool == ses.Path {
			t.Errorf("%s: not spooled", ses.Path)
		}
		c.Close()
		if _, err := os.Stat(spool); !os.IsNotExist(err) {
			t.Errorf("spool %s left behind", spool)
		}
	}
}

// TestChangedBetweenPasses: a transcript rewritten between the two passes
// is an error, never another entry shown as this one.
func TestChangedBetweenPasses(t *testing.T) {
	p := write(t, "s.jsonl", forked)
	c := open(t, store.Session{Era: store.EraJSONL, Path: p})
	shifted := strings.Replace(forked, `"first question"`, `"a much longer first question than before"`, 1)
	if err := os.WriteFile(p, []byte(shifted), 0o600); err != nil {
		t.Fatal(err)
	}
	err := c.Items(context.Background(), conversation.Selection{}, func(*conversation.Item) error { return nil })
	if !errors.Is(err, conversation.ErrChanged) {
		t.Errorf("got %v, want ErrChanged", err)
	}
}

// TestLongBranchReadsInOrder: a long chain is shown whole, in order.
func TestLongBranchReadsInOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s"}` + "\n")
	parent := "null"
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"m%d","parentId":%s,"message":{"role":"user","content":"n%d"}}`+"\n", i, parent, i)
		parent = fmt.Sprintf(`"m%d"`, i)
	}
	c := open(t, store.Session{Era: store.EraJSONL, Path: write(t, "long.jsonl", b.String())})
	n := 0
	err := c.Items(context.Background(), conversation.Selection{}, func(it *conversation.Item) error {
		if want := fmt.Sprintf("n%d", n); it.Blocks[0].Text != want {
			return fmt.Errorf("item %d is %q", n, it.Blocks[0].Text)
		}
		n++
		return nil
	})
	if err != nil || n != 5000 {
		t.Fatalf("%d items, %v", n, err)
	}
}

func TestStringValuesSkipKeys(t *testing.T) {
	var got []string
	conversation.StringValues([]byte(`{"needle":"a\"needle\"","list":["x",{"k":"v"}],"n":1}`), func(s string) { got = append(got, s) })
	if strings.Join(got, "|") != `a"needle"|x|v` {
		t.Errorf("got %q", got)
	}
}

// The same on a transcript the slim skeleton takes (no malformed line):
// the shown entries are checked against the first pass, and reading ids
// back from a changed file (fork points, leaves) does not fail.
func TestChangedBetweenPassesSlim(t *testing.T) {
	clean := strings.Replace(forked, "not json at all\n", "", 1)
	p := write(t, "s.jsonl", clean)
	c := open(t, store.Session{Era: store.EraJSONL, Path: p})
	if len(c.Notes) != 0 {
		t.Fatalf("notes %q", c.Notes)
	}
	shifted := strings.Replace(clean, `"first question"`, `"a much longer first question than before"`, 1)
	if err := os.WriteFile(p, []byte(shifted), 0o600); err != nil {
		t.Fatal(err)
	}
	err := c.Items(context.Background(), conversation.Selection{}, func(*conversation.Item) error { return nil })
	if !errors.Is(err, conversation.ErrChanged) {
		t.Errorf("got %v, want ErrChanged", err)
	}
	_ = c.Leaves()
	_ = c.Items(context.Background(), conversation.Selection{All: true}, func(*conversation.Item) error { return nil })
	if err := os.WriteFile(p, []byte("garbage\n{\"x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = c.Leaves()
	_ = c.Items(context.Background(), conversation.Selection{Branch: "c"}, func(*conversation.Item) error { return nil })
}
