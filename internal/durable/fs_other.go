//go:build !linux

package durable

import "errors"

// errUnsupported: there is no renameat2 here.
var errUnsupported = errors.New("renameat2 not available")

// exchange is Linux-only (renameat2 RENAME_EXCHANGE).
func exchange(a, b string) error { return errUnsupported }

// renameNoReplace is Linux-only (renameat2 RENAME_NOREPLACE); OSFS falls
// back to link and unlink.
func renameNoReplace(oldpath, newpath string) error { return errUnsupported }
