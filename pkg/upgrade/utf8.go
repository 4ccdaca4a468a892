package upgrade

// utf8Detector is the WHATWG UTF-8 decoder of Node's
// `new TextDecoder("utf-8", {fatal: true})`, reduced to the one thing 9.6's
// import cares about: where in the byte stream it throws. Go's utf8 package
// rejects the same sequences (surrogates, overlongs, > U+10FFFF) but reports
// them at the lead byte; the WHATWG decoder throws at the byte that proves
// the sequence bad, which decides the 64 KiB chunk that throws.
type utf8Detector struct {
	needed, seen int
	lower, upper byte
}

// feed consumes b and returns the index in b of the byte at which decoding
// fails, or -1 when b decodes (a sequence may stay open across calls).
func (d *utf8Detector) feed(b []byte) int {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if d.needed == 0 {
			if c < 0x80 {
				// fast path over ASCII runs
				continue
			}
			switch {
			case c >= 0xC2 && c <= 0xDF:
				d.needed = 1
			case c >= 0xE0 && c <= 0xEF:
				if c == 0xE0 {
					d.lower = 0xA0
				} else if c == 0xED {
					d.upper = 0x9F
				}
				d.needed = 2
			case c >= 0xF0 && c <= 0xF4:
				if c == 0xF0 {
					d.lower = 0x90
				} else if c == 0xF4 {
					d.upper = 0x8F
				}
				d.needed = 3
			default:
				return i
			}
			if d.lower == 0 {
				d.lower = 0x80
			}
			if d.upper == 0 {
				d.upper = 0xBF
			}
			continue
		}
		if c < d.lower || c > d.upper {
			return i
		}
		d.lower, d.upper = 0x80, 0xBF
		d.seen++
		if d.seen == d.needed {
			d.needed, d.seen, d.lower, d.upper = 0, 0, 0, 0
		}
	}
	return -1
}

// pending reports whether a sequence is still open (the final
// `decoder.decode()` flush throws then).
func (d *utf8Detector) pending() bool { return d.needed > 0 }
