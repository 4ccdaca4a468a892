//go:build !linux

package doctor

// exchangeFiles is Linux-only (renameat2 RENAME_EXCHANGE).
func exchangeFiles(a, b string) error { return errNoExchange }

// renameNoReplace renames oldpath to newpath unless newpath exists.
func renameNoReplace(oldpath, newpath string) error { return linkRename(oldpath, newpath) }
