package conversation

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// The rules that choose a session's active branch: the release of its era.
const (
	Rules56 = "2026.5.6" // JSONL transcripts: pi's SessionManager (last entry is the leaf)
	Rules96 = "2026.9.6" // SQLite sessions: leaf control rows, side appends, resets
)

// Conversation is an opened session: its entries' skeleton (ids, parents,
// offsets, not their content) and the file the entries are read from. Close
// removes the temporary copy a SQLite or compressed session is read through.
type Conversation struct {
	Session store.Session
	Header  *transcript.Header
	// Rules is the release whose rules chose the active branch.
	Rules string
	// Notes are things a reader should know about the whole session (an
	// invalid header, malformed lines), one sentence each, untrusted text
	// escaped by the renderer.
	Notes []string
	// Entries, Lines and Bytes count the session's entries, lines and bytes.
	Entries int
	Lines   int64
	Bytes   int64

	file  *os.File
	spool string
	// sk is the entries' skeleton: slim for the usual transcript, else
	// transcript's full index (ix, nil for a slim one)
	sk   skeleton
	ix   *transcript.Index
	kids []int32 // children of each node
	// active is the active branch, in order.
	active []ref
	// activeLines is the active branch's lines, sorted (for --all's marks).
	activeLines []int64
}

// ref is one line to read: its number, its offset in the file, and its
// node (-1: a line the tree has no node for, such as a 2026.9.6 header row).
type ref struct {
	line, offset int64
	node         int
}

// Open reads a session's skeleton. A plain JSONL transcript is read in
// place; a compressed one, stdin, a SQLite session and an archived
// generation are copied to a private temporary file first (rows as JSONL
// lines, header first), which Close removes. The active branch is chosen
// by the rules of the session's era (Rules56 for JSONL, Rules96 for SQLite
// and archived generations).
func Open(ctx context.Context, st *store.State, ses store.Session, stdin io.Reader) (*Conversation, error) {
	c := &Conversation{Session: ses, Rules: Rules56}
	var rowOffsets []int64
	var recs []*nav96.Record
	var err error
	if ses.Era == store.EraJSONL && ses.Archive == nil {
		err = c.openJSONL(ctx, ses.Path, stdin)
	} else {
		c.Rules = Rules96
		rowOffsets, recs, err = c.spoolRows(ctx, st, ses)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	if err := c.index(); err != nil {
		c.Close()
		return nil, err
	}
	if c.Rules == Rules96 {
		c.active = activeRows96(recs, rowOffsets, c.sk)
	} else {
		path := c.sk.Path()
		c.active = make([]ref, 0, len(path))
		for _, i := range path {
			c.active = append(c.active, ref{line: c.sk.Line(i), offset: c.sk.Offset(i), node: i})
		}
	}
	c.activeLines = make([]int64, len(c.active))
	for k, r := range c.active {
		c.activeLines[k] = r.line
	}
	sort.Slice(c.activeLines, func(a, b int) bool { return c.activeLines[a] < c.activeLines[b] })
	return c, nil
}

// openJSONL opens a transcript file: in place when it is plain, else
// through a spool of its decompressed bytes.
func (c *Conversation) openJSONL(ctx context.Context, path string, stdin io.Reader) error {
	src, err := jsonl.Open(path, stdin)
	if err != nil {
		return err
	}
	defer src.Close()
	if path != "-" && src.Compression == jsonl.Plain {
		f, _, err := durable.OpenRegular(path)
		if err != nil {
			return err
		}
		c.file = f
		return nil
	}
	w, err := c.newSpool()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, ctxReader{ctx, src}); err != nil {
		return fmt.Errorf("%s: %w", src.Name, err)
	}
	return w.Flush()
}

// ctxReader stops a copy when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// newSpool creates the private temporary file rows are copied to.
func (c *Conversation) newSpool() (*bufio.Writer, error) {
	f, err := os.CreateTemp("", "oc-show-*.jsonl")
	if err != nil {
		return nil, err
	}
	c.file, c.spool = f, f.Name()
	return bufio.NewWriterSize(f, 1<<20), nil
}

// spoolRows copies a SQLite session's rows (or an archived generation's
// lines) to the spool, one a line, as they are read (store.StreamRows:
// nothing of the session is held in memory but each row's navigation
// record), and parses each by 2026.9.6's navigation rules on the way.
func (c *Conversation) spoolRows(ctx context.Context, st *store.State, ses store.Session) ([]int64, []*nav96.Record, error) {
	w, err := c.newSpool()
	if err != nil {
		return nil, nil, err
	}
	var offsets []int64
	var recs []*nav96.Record
	var off int64
	var werr error
	reset := func() {
		// the read starts over: so does the spool
		offsets, recs, off = nil, nil, 0
		w.Reset(c.file)
		if _, err := c.file.Seek(0, io.SeekStart); err != nil {
			werr = err
		} else if err := c.file.Truncate(0); err != nil {
			werr = err
		}
	}
	if _, err := st.StreamRows(ctx, ses, nil, reset, func(_ int64, line []byte) error {
		if werr != nil {
			return werr
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		offsets = append(offsets, off)
		recs = append(recs, nav96.ParseSlim(line))
		if _, err := w.Write(line); err != nil {
			return err
		}
		off += int64(len(line)) + 1
		return w.WriteByte('\n')
	}); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ses.Label(), err)
	}
	if werr != nil {
		return nil, nil, werr
	}
	return offsets, recs, w.Flush()
}

// index makes the skeleton: one pass over the file keeping ids, parents and
// offsets (the slim skeleton when the transcript is one it decides on, else
// a second pass making transcript's full index).
func (c *Conversation) index() error {
	if _, err := c.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	slim, h, lines, size, ok, err := scanSlim(c.file, c.file)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name(), err)
	}
	if ok {
		c.sk, c.Header = slim, h
		c.Entries, c.Lines, c.Bytes = slim.Len(), lines, size
		c.countKids()
		return nil
	}
	ix, err := c.fullIndex()
	if err != nil {
		return err
	}
	c.ix, c.Header = ix, ix.Header
	c.sk = &fullSkeleton{ix: ix, tree: transcript.NewTree(ix)}
	c.Entries, c.Lines, c.Bytes = len(ix.Nodes), ix.Lines, ix.Bytes
	c.countKids()
	if ix.HeaderInvalid {
		c.Notes = append(c.Notes, "the first line that parses is not a session header: OpenClaw ignores this transcript")
	}
	if n := len(ix.Malformed); n > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d malformed %s (not JSON; OpenClaw skips %s), first at line %d", n, plural(n, "line", "lines"), plural(n, "it", "them"), ix.Malformed[0]))
	}
	return nil
}

// fullIndex is transcript's index of the file (every entry's skeleton and
// settings), read in a pass of its own.
func (c *Conversation) fullIndex() (*transcript.Index, error) {
	if _, err := c.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var size int64
	if fi, err := c.file.Stat(); err == nil {
		size = fi.Size()
	}
	ix, err := transcript.Scan(bufio.NewReaderSize(c.file, 1<<20), transcript.ScanOptions{SizeHint: size})
	if err != nil && !(errors.Is(err, transcript.ErrNotTranscript) && ix != nil && len(ix.Malformed) == 0) {
		return nil, fmt.Errorf("%s: %w", c.name(), err)
	}
	return ix, nil
}

// countKids counts each node's children.
func (c *Conversation) countKids() {
	c.kids = make([]int32, c.sk.Len())
	for i := range c.kids {
		if p := c.sk.Parent(i); p >= 0 && p != i {
			c.kids[p]++
		}
	}
}

// activeRows96 is 2026.9.6's active branch of the spooled rows.
func activeRows96(recs []*nav96.Record, offsets []int64, sk skeleton) []ref {
	res := nav96.AnalyzeRecords(recs)
	out := make([]ref, 0, len(res.Active))
	for _, i := range res.Active {
		if recs[i].Header() {
			continue
		}
		line := int64(i) + 1
		node := nodeOfLine(sk, line)
		out = append(out, ref{line: line, offset: offsets[i], node: node})
	}
	return out
}

func (c *Conversation) name() string {
	if c.Session.Era == store.EraJSONL && c.Session.Archive == nil {
		return c.Session.Path
	}
	return c.Session.Label()
}

// Path is the file the entries are read from: the transcript itself, or
// the private copy of a SQLite session, archive or compressed file (rows
// as JSONL lines, header first), valid until Close.
func (c *Conversation) Path() string {
	if c.spool != "" {
		return c.spool
	}
	return c.Session.Path
}

// Close releases the file and removes the spool.
func (c *Conversation) Close() error {
	var err error
	if c.file != nil {
		err = c.file.Close()
		c.file = nil
	}
	if c.spool != "" {
		if rerr := os.Remove(c.spool); err == nil {
			err = rerr
		}
		c.spool = ""
	}
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// findNode is the node an entry id or a line number names (the last entry
// with the id, as OpenClaw's index keeps it).
func (c *Conversation) findNode(spec string) (int, bool) {
	for i := c.sk.Len() - 1; i >= 0; i-- {
		if c.sk.HasID(i, spec) && c.sk.ID(i) == spec {
			return i, true
		}
	}
	if n, err := strconv.ParseInt(spec, 10, 64); err == nil {
		if k := nodeOfLine(c.sk, n); k >= 0 {
			return k, true
		}
	}
	return -1, false
}

// nodeOfLine is the node on a line, -1 for none (nodes are in line order).
func nodeOfLine(sk skeleton, line int64) int {
	k := sort.Search(sk.Len(), func(i int) bool { return sk.Line(i) >= line })
	if k < sk.Len() && sk.Line(k) == line {
		return k
	}
	return -1
}
