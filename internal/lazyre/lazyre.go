// Package lazyre holds regular expressions that are compiled the first time
// they are used, not when the program starts: oc has about eighty, and
// compiling them all before every command (most use none) cost a few
// milliseconds of each run.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function giving expr compiled, compiling it on the first
// call. It panics, on that call, if expr does not compile, as
// regexp.MustCompile does (TestEveryLiteralCompiles compiles every
// expression the program writes as a literal).
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
