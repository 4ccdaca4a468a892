package cli

import "github.com/charmbracelet/lipgloss"

// Styles are the few text styles oc uses. With the Ascii profile every style
// renders its text unchanged, so piped output is plain.
type Styles struct {
	Title   lipgloss.Style
	Heading lipgloss.Style
	OK      lipgloss.Style
	Warn    lipgloss.Style
	Error   lipgloss.Style
	Dim     lipgloss.Style
	Bold    lipgloss.Style
	Key     lipgloss.Style
	String  lipgloss.Style
	Number  lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) *Styles {
	return &Styles{
		Title:   r.NewStyle().Bold(true).Foreground(lipgloss.Color("12")),
		Heading: r.NewStyle().Bold(true),
		OK:      r.NewStyle().Foreground(lipgloss.Color("10")),
		Warn:    r.NewStyle().Foreground(lipgloss.Color("11")),
		Error:   r.NewStyle().Foreground(lipgloss.Color("9")).Bold(true),
		Dim:     r.NewStyle().Foreground(lipgloss.Color("8")),
		Bold:    r.NewStyle().Bold(true),
		Key:     r.NewStyle().Foreground(lipgloss.Color("12")),
		String:  r.NewStyle().Foreground(lipgloss.Color("10")),
		Number:  r.NewStyle().Foreground(lipgloss.Color("13")),
	}
}

// Severity renders a severity word with its colour.
func (st *Styles) Severity(sev string) string {
	switch sev {
	case "error":
		return st.Error.Render(sev)
	case "warning", "warn":
		return st.Warn.Render(sev)
	case "ok":
		return st.OK.Render(sev)
	default:
		return st.Dim.Render(sev)
	}
}
