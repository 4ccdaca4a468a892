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
