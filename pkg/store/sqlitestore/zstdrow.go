package sqlitestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// MaxEventBytes is OpenClaw 2026.9.6's bound on a compressed transcript
// row (MAX_COMPRESSED_EVENT_BYTES; openclaw_transcript_payload_decode in
// dist/transcript-payload-*.mjs): event_zstd holds 1 to 4 MiB and
// event_utf8_bytes is 1 to 4 MiB; the value is decompressed with at most
// event_utf8_bytes of output, must be exactly that long, and must be UTF-8.
// A row outside that is one 9.6 fails to read.
const MaxEventBytes = 4 << 20

// DamagedRowError is a transcript_events row 2026.9.6 cannot read (see
// MaxEventBytes). oc decodes such a row no further than the size it claims.
type DamagedRowError struct {
	Path      string // the database
	SessionID string
	Seq       int64
	Reason    string
}

func (e *DamagedRowError) Error() string {
	return fmt.Sprintf("%s: session %s seq %d: %s", e.Path, safeName(e.SessionID), e.Seq, e.Reason)
}

// rowBoundsReason says why 9.6 refuses a zstd row before decoding it
// ("" when its sizes are within 9.6's bounds).
func rowBoundsReason(ev Event) string {
	switch {
	case len(ev.Zstd) == 0 || len(ev.Zstd) > MaxEventBytes:
		return fmt.Sprintf("event_zstd of %d bytes, outside 1..%d (OpenClaw 2026.9.6: \"Invalid compressed transcript payload bounds\")", len(ev.Zstd), MaxEventBytes)
	case ev.UTF8Bytes < 1 || ev.UTF8Bytes > MaxEventBytes:
		claim := fmt.Sprint(ev.UTF8Bytes)
		if ev.UTF8Bytes < 0 {
			claim = "not an integer"
		}
		return fmt.Sprintf("event_utf8_bytes %s, outside 1..%d (OpenClaw 2026.9.6: \"Invalid compressed transcript payload bounds\")", claim, MaxEventBytes)
	}
	return ""
}

// CheckEvent says whether a zstd row of session sessionID is within
// 2026.9.6's bounds, before it is decoded: a *DamagedRowError when it is
// not, nil when it is (or the row is not a zstd row).
func (d *DB) CheckEvent(sessionID string, ev Event) error {
	if ev.JSON != nil || ev.Zstd == nil {
		return nil
	}
	if why := rowBoundsReason(ev); why != "" {
		return &DamagedRowError{Path: d.Path, SessionID: sessionID, Seq: ev.Seq, Reason: why}
	}
	return nil
}

// DecodeEvent decompresses a zstd row (ev.Zstd, JSON nil) of session
// sessionID into dst (reused, returned): never more than the
// event_utf8_bytes the row claims, plus one byte to tell that it has more.
// A row 2026.9.6 cannot read is a *DamagedRowError.
func (d *DB) DecodeEvent(sessionID string, ev Event, dst []byte) ([]byte, error) {
	damaged := func(format string, args ...any) error {
		return &DamagedRowError{Path: d.Path, SessionID: sessionID, Seq: ev.Seq, Reason: fmt.Sprintf(format, args...)}
	}
	if why := rowBoundsReason(ev); why != "" {
		return dst[:0], damaged("%s", why)
	}
	dec, err := d.eventDecoder()
	if err != nil {
		return dst[:0], err
	}
	defer d.putEventDecoder(dec)
	if err := dec.Reset(bytes.NewReader(ev.Zstd)); err != nil {
		return dst[:0], damaged("event_zstd does not decode (zstd: %s)", oneLineErr(err))
	}
	claim := int(ev.UTF8Bytes)
	if cap(dst) < claim {
		dst = make([]byte, claim)
	}
	dst = dst[:claim]
	n, err := io.ReadFull(dec, dst)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return dst[:0], damaged("event_zstd decodes to %d bytes, event_utf8_bytes says %d (OpenClaw 2026.9.6: \"Compressed transcript payload length does not match its recorded UTF-8 size\")", n, claim)
	case err != nil:
		return dst[:0], damaged("event_zstd does not decode after %d bytes (zstd: %s)", n, oneLineErr(err))
	}
	var more [1]byte
	switch k, err := dec.Read(more[:]); {
	case k > 0:
		return dst[:0], damaged("event_zstd decodes to more than the %d bytes event_utf8_bytes says: not decoded further (OpenClaw 2026.9.6 refuses it too)", claim)
	case !errors.Is(err, io.EOF):
		return dst[:0], damaged("event_zstd does not decode after %d bytes (zstd: %s)", claim, oneLineErr(err))
	}
	if !utf8.Valid(dst) {
		return dst[:0], damaged("event_zstd decodes to bytes that are not UTF-8 (OpenClaw 2026.9.6's strict decoder refuses them)")
	}
	return dst, nil
}

// eventDecoder is an idle decoder of zstd rows, or a new one: one
// goroutine, a window of at most MaxEventBytes (a 9.6 row's frame needs no
// more: its content is at most that), memory allocated as it is needed.
func (d *DB) eventDecoder() (*zstd.Decoder, error) {
	select {
	case dec := <-d.decoders:
		return dec, nil
	default:
	}
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(MaxEventBytes), zstd.WithDecoderMaxMemory(MaxEventBytes+1))
}

func (d *DB) putEventDecoder(dec *zstd.Decoder) {
	select {
	case d.decoders <- dec:
	default:
		dec.Close()
	}
}
