package cli

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Column is one column of a Table.
type Column struct {
	Title string
	Width int  // visible columns the cells are padded to (0: not padded)
	Right bool // right-aligned (numbers)
	Gap   int  // extra spaces before the column, beyond the one that separates every column
	// Min > 0: on a terminal too narrow for the rows, Layout may narrow the
	// column down to Min, cutting its cells (in the middle with CutMiddle,
	// else at the end, each with "…"). 0: never cut.
	Min       int
	CutMiddle bool
}

// Table renders rows of cells in fixed-width columns. Widths count visible
// characters, so styled (ANSI) and non-ASCII cells line up on a terminal.
type Table struct {
	Columns []Column
}

// Header is the row of column titles, in the heading style.
func (t Table) Header(st *Styles) string {
	titles := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		titles[i] = c.Title
	}
	return st.Heading.Render(t.Row(titles...))
}

// Row is one line of cells, each padded to its column's width (cells beyond
// the columns are appended as they are).
func (t Table) Row(cells ...string) string {
	var b strings.Builder
	for i, cell := range cells {
		var c Column
		if i < len(t.Columns) {
			c = t.Columns[i]
		}
		if i > 0 {
			b.WriteString(strings.Repeat(" ", 1+c.Gap))
		}
		pad := c.Width - lipgloss.Width(cell)
		if pad > 0 && c.Right {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString(cell)
		if pad > 0 && !c.Right && i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", pad))
		}
	}
	return b.String()
}

// Layout sizes t's columns for rows so that no cell is cut: each column is
// as wide as its widest cell (never narrower than its Width). When maxWidth
// > 0 (a terminal's width) and the rows are wider than that, the columns
// with a Min are narrowed, right to left, each down to its Min, and their
// cells cut to fit, if that makes the rows fit (else nothing is cut: the
// terminal wraps them); output that is piped (maxWidth 0) is never cut. It
// returns the table and the rows as they are to be printed.
func (t Table) Layout(rows [][]string, maxWidth int) (Table, [][]string) {
	cols := append([]Column(nil), t.Columns...)
	last := 0 // the widest cell of the last column (it is not padded)
	for _, r := range rows {
		for i, c := range r {
			w := lipgloss.Width(c)
			switch {
			case i == len(cols)-1:
				last = max(last, w, lipgloss.Width(cols[i].Title))
			case i < len(cols) && w > cols[i].Width:
				cols[i].Width = w
			}
		}
	}
	out := Table{Columns: cols}
	if maxWidth <= 0 {
		return out, rows
	}
	width := func() int {
		n := last
		for i, c := range cols[:len(cols)-1] {
			n += c.Width + 1 + cols[i+1].Gap
		}
		return n
	}
	// Cut only when that makes the rows fit: on a terminal narrower than
	// the narrowest layout the terminal wraps them anyway, and whole cells
	// can still be copied.
	floor := last
	for i, c := range cols[:len(cols)-1] {
		w := c.Width
		if c.Min > 0 {
			w = min(w, c.Min)
		}
		floor += w + 1 + cols[i+1].Gap
	}
	if floor > maxWidth {
		return out, rows
	}
	narrowed := map[int]bool{}
	for i := len(cols) - 2; i >= 0 && width() > maxWidth; i-- {
		c := &cols[i]
		if c.Min <= 0 || c.Width <= c.Min {
			continue
		}
		c.Width = max(c.Min, c.Width-(width()-maxWidth))
		narrowed[i] = true
	}
	if len(narrowed) == 0 {
		return out, rows
	}
	cut := make([][]string, len(rows))
	for ri, r := range rows {
		cut[ri] = append([]string(nil), r...)
		for i := range narrowed {
			if i < len(r) {
				cut[ri][i] = fitCell(r[i], cols[i].Width, cols[i].CutMiddle)
			}
		}
	}
	return out, cut
}

// fitCell cuts plain text s to n columns with "…" (in its middle, or at its
// end).
func fitCell(s string, n int, middle bool) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	if !middle {
		return string(r[:n-1]) + "…"
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}
