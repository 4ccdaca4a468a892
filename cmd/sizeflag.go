package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag of a size in bytes: a number, optionally followed by
// K, M, G or T (powers of 1024; "KiB", "MB" and the like read the same).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	u := strings.ToUpper(t)
	u = strings.TrimSuffix(strings.TrimSuffix(u, "B"), "I")
	shift := 0
	if n := len(u); n > 0 {
		if i := strings.IndexByte("KMGT", u[n-1]); i >= 0 {
			shift, u = 10*(i+1), u[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(u), 10, 64)
	if err != nil || n <= 0 || shift > 0 && n > (1<<62)>>shift {
		return fmt.Errorf("%q is not a size (a positive number of bytes, or one with K, M, G or T: 512M, 2GiB)", s)
	}
	*b = byteSize(n << shift)
	return nil
}
