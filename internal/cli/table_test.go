package cli

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/stretchr/testify/assert"
)

// Cells are padded by visible width: styled and non-ASCII text lines up.
func TestTableRowPadsByVisibleWidth(t *testing.T) {
	tb := Table{Columns: []Column{{Title: "NAME", Width: 6}, {Title: "N", Width: 4, Right: true}, {Title: "NOTE", Gap: 1}}}
	assert.Equal(t, "ab       12  x", tb.Row("ab", "12", "x"))
	assert.Equal(t, "日本     12  x", tb.Row("日本", "12", "x"))
	styled := "\x1b[1mab\x1b[0m"
	row := tb.Row(styled, "12", "x")
	assert.Equal(t, len("ab       12  x"), lipgloss.Width(row), "%q", row)
	assert.Equal(t, "toolong 1", Table{Columns: []Column{{Width: 3}, {}}}.Row("toolong", "1"), "a long cell is not cut")
	assert.Equal(t, "ab", Table{Columns: []Column{{Width: 6}}}.Row("ab"), "the last cell is not padded")
}

// Layout never cuts a cell when piped (maxWidth 0): the columns widen to
// their widest cell. On a narrow terminal the columns with a Min are cut,
// right to left, down to their Min.
func TestTableLayout(t *testing.T) {
	tb := Table{Columns: []Column{{Title: "KEY", Width: 8, Min: 6, CutMiddle: true}, {Title: "ID", Width: 4, Min: 4}, {Title: "N"}}}
	rows := [][]string{{"agent:main:telegram:direct:42", "0197d2a4-6b1e-7c3d", "1 warning"}, {"k", "i", "ok"}}
	piped, out := tb.Layout(rows, 0)
	assert.Equal(t, rows, out)
	assert.Equal(t, "agent:main:telegram:direct:42 0197d2a4-6b1e-7c3d 1 warning", piped.Row(out[0]...))
	assert.Equal(t, "k                             i                  ok", piped.Row(out[1]...))
	tty, out := tb.Layout(rows, 30)
	assert.Equal(t, "agent:m…rect:42 019… 1 warning", tty.Row(out[0]...))
	assert.Equal(t, 30, lipgloss.Width(tty.Row(out[0]...)))
	assert.Equal(t, rows[0][0], rows[0][0], "the caller's rows are not changed")
	assert.Equal(t, "agent:main:telegram:direct:42", rows[0][0])
	narrow, out := tb.Layout(rows, 20)
	assert.Equal(t, rows, out, "too narrow even when cut: nothing is cut")
	assert.Equal(t, piped, narrow)
	wide, out := tb.Layout(rows, 200)
	assert.Equal(t, rows, out)
	assert.Equal(t, piped, wide)
}
