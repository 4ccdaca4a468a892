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
