package cireport

import (
	"net/url"
	"path/filepath"
	"strings"
)

// displayPath is p relative to base (with forward slashes) when p lies
// inside base, else p made absolute; "" stays "". A base of "" leaves p as
// it is.
func displayPath(base, p string) (out string, relative bool) {
	if p == "" || base == "" {
		return filepath.ToSlash(p), !filepath.IsAbs(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p), !filepath.IsAbs(p)
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs), false
	}
	return filepath.ToSlash(rel), true
}

// fileURI is the SARIF artifactLocation.uri of p: a relative reference
// (percent-encoded) inside base, else a file: URI.
func fileURI(base, p string) string {
	d, relative := displayPath(base, p)
	if relative {
		return (&url.URL{Path: d}).String()
	}
	if !strings.HasPrefix(d, "/") {
		d = "/" + d // a Windows drive path: file:///C:/...
	}
	return (&url.URL{Scheme: "file", Path: d}).String()
}
