package sqlitestore

// Archived transcript generations of OpenClaw 2026.9.6
// (session_transcript_archives), read the way 9.6 writes, publishes and
// reads them back (dist/session-accessor.sqlite-archive-artifact-*.mjs,
// session-accessor.sqlite-lifecycle-state-*.mjs,
// session-accessor.sqlite-archive-read-*.mjs,
// config/sessions/session-accessor.sqlite-archive.worker.js):
//
//   - When a session is deleted with its transcript archived (deleteSessionEntry
//     with archiveTranscript, history maintenance, disk-budget eviction), the
//     archive worker (materializeTranscriptArchiveInWorker) writes every
//     transcript_events row's event JSON (event_zstd decompressed), each
//     followed by "\n", in seq order, and encodes that text: zstd (one
//     node:zlib stream) when the runtime has createZstdCompress, else
//     'identity' (the bytes as they are). archive_sha256 is the sha256 of the
//     ENCODED bytes, the blob as stored (hashSessionArchiveBytes(bytes)), not
//     of the decoded text. 9.6 never encodes more than 256 MiB
//     (MAX_MATERIALIZED_ARCHIVE_BATCH_BYTES).
//   - In the transaction that deletes the session's rows,
//     persistSessionTranscriptArchive inserts the row: published_at NULL, no
//     attempts. The row is the canonical owner; the file is derived.
//   - Publication (publishSessionStateArchives, after the commit; again for up
//     to 4 pending rows on every later deletion pass) first renames a pending
//     row to the name it derives from the row (resolveRegisteredSqliteTranscriptArchiveName:
//     "<id>.jsonl.<reason>.<created_at as ISO, ':' -> '-'>.<generation>" plus
//     ".zst" for zstd; an id over 96 UTF-8 bytes becomes "session-<sha256 of
//     the id>"), then the worker (publishTranscriptArchiveInWorker) checks
//     sha256(archive_blob) against archive_sha256 ("Canonical SQLite
//     transcript archive is corrupt for <id>" when they differ) and writes the
//     blob's bytes, unchanged, to resolveSessionArtifactDirectory(db)/<name>
//     (agents/<id>/sessions/). A file already there is kept when its sha256 is
//     archive_sha256 and is otherwise an error ("SQLite transcript archive
//     collision for <name>"); a name that is not a plain file name in that
//     folder is refused. Each attempt sets last_publish_attempt_at,
//     publish_attempts + 1 and last_publish_error (NULL on success, when
//     published_at is set too).
//   - Retention and disk-budget pruning delete the derived file first and the
//     row after it; a published row whose file is gone is that state, or a
//     file removed by hand.
//   - Reading back (readTranscriptArchiveFinalInWorker): the same hash check,
//     then the blob decoded (zstd when encoding is 'zstd', else as it is),
//     line by line; the first line must be the session header of the row's
//     session ("Archived transcript header does not match its registered
//     session." otherwise).
//
// oc reads the rows in one short read transaction each (the blob copied
// out), never writes them, and never writes the derived files.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-tools/oc/internal/budget"
	"github.com/openclaw-tools/oc/internal/durable"
)

// MaxArchiveBlobBytes is 9.6's MAX_MATERIALIZED_ARCHIVE_BATCH_BYTES: the
// most a transcript archive is encoded to. oc does not load a bigger blob.
const MaxArchiveBlobBytes = 256 << 20

// maxArchiveWindow is the largest zstd window a frame may ask for: node:zlib's
// default limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27), beyond which 9.6 fails
// to decode it too.
const maxArchiveWindow = 1 << 27

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// TranscriptArchive is one session_transcript_archives row without its blob.
type TranscriptArchive struct {
	SessionID  string `json:"sessionId"`
	Generation string `json:"generation"`
	SessionKey string `json:"sessionKey"`
	Reason     string `json:"reason"`   // "deleted" or "reset"
	Encoding   string `json:"encoding"` // "identity" or "zstd"
	SHA256     string `json:"archiveSha256"`
	Name       string `json:"archiveName"`
	BlobBytes  int64  `json:"blobBytes"`
	CreatedAt  int64  `json:"createdAt"`
	// PublishedAt is nil until the derived file was written.
	PublishedAt          *int64  `json:"publishedAt"`
	PublishAttempts      int64   `json:"publishAttempts"`
	LastPublishAttemptAt *int64  `json:"lastPublishAttemptAt,omitempty"`
	LastPublishError     *string `json:"lastPublishError,omitempty"`
	// KeySessionID is the session the row's key names now (session_nodes),
	// "" when no session has that key any more (a deleted session).
	KeySessionID string `json:"keySessionId,omitempty"`
}

// Spec is how a SESSION argument names the generation: "<sessionId>@<generation>".
func (a TranscriptArchive) Spec() string { return a.SessionID + "@" + a.Generation }

// ArchiveError is an archived generation whose blob cannot be trusted or
// decoded. Its message is one line naming the database and the row.
type ArchiveError struct {
	Where  string // "<db>#session_transcript_archives[<id>@<generation>].archive_blob"
	Reason string
}

func (e *ArchiveError) Error() string { return e.Where + ": " + e.Reason }

// ErrArchiveNotFound: no session_transcript_archives row has that session id
// and generation (any more).
var ErrArchiveNotFound = errors.New("no such archived generation")

// ArtifactDir is where 9.6 keeps a database's session files
// (resolveSessionArtifactDirectory): agents/<id>/sessions for
// agents/<id>/agent/openclaw-agent.sqlite, else the database's folder.
func ArtifactDir(dbPath string) string {
	dir := filepath.Dir(dbPath)
	if filepath.Base(dir) == "agent" {
		return filepath.Join(filepath.Dir(dir), "sessions")
	}
	return dir
}

// ArchiveWhere names a row's blob in messages.
func (d *DB) ArchiveWhere(a TranscriptArchive) string {
	return fmt.Sprintf("%s#session_transcript_archives[%s].archive_blob", d.Path, a.Spec())
}

const archiveColumns = `a.session_id, a.generation, a.session_key, a.reason, a.encoding, a.archive_sha256, a.archive_name,
	coalesce(octet_length(a.archive_blob), 0), a.created_at, a.published_at, a.publish_attempts, a.last_publish_attempt_at, a.last_publish_error,
	coalesce(n.current_session_id, '')`

const archiveFrom = ` FROM session_transcript_archives AS a LEFT JOIN session_nodes AS n ON n.session_key = a.session_key`

func scanArchive(sc interface{ Scan(...any) error }, a *TranscriptArchive) error {
	var published, lastAttempt sql.NullInt64
	var lastErr sql.NullString
	if err := sc.Scan(&a.SessionID, &a.Generation, &a.SessionKey, &a.Reason, &a.Encoding, &a.SHA256, &a.Name,
		&a.BlobBytes, &a.CreatedAt, &published, &a.PublishAttempts, &lastAttempt, &lastErr, &a.KeySessionID); err != nil {
		return err
	}
	if published.Valid {
		a.PublishedAt = &published.Int64
	}
	if lastAttempt.Valid {
		a.LastPublishAttemptAt = &lastAttempt.Int64
	}
	if lastErr.Valid {
		a.LastPublishError = &lastErr.String
	}
	return nil
}

// TranscriptArchives lists the archived generations (blobs not read), in
// 9.6's order (created_at, session id, generation). A database whose schema
// has no session_transcript_archives yet (9.6 creates it on first use) has
// none.
func (d *DB) TranscriptArchives(ctx context.Context) ([]TranscriptArchive, error) {
	if !d.HasTable("session_transcript_archives") {
		return nil, nil
	}
	return readAll(ctx, d, "SELECT "+archiveColumns+archiveFrom+" ORDER BY a.created_at, a.session_id, a.generation", scanArchive)
}

// ArchiveBlob is one archived generation read from its database: the row and
// its blob, copied out of the read transaction.
type ArchiveBlob struct {
	TranscriptArchive
	Where  string // ArchiveWhere of the row
	blob   []byte
	budget *budget.Bytes
	// Verified: the blob's sha256 is archive_sha256 and the encoding is one
	// 9.6 writes with bytes of that encoding (zstd decoding is checked as the
	// text is read).
	Verified bool
}

// ReadArchive reads the row (sessionID, generation) and its blob in one read
// transaction and checks the blob as 9.6's publication does (sha256 of the
// stored bytes against archive_sha256), and that its bytes are of its
// encoding. A blob that fails is an *ArchiveError, returned with the
// ArchiveBlob (its row, for the report); a missing row is ErrArchiveNotFound.
// A blob over MaxArchiveBlobBytes is not loaded (an *ArchiveError).
func (d *DB) ReadArchive(ctx context.Context, sessionID, generation string) (*ArchiveBlob, error) {
	if !d.HasTable("session_transcript_archives") {
		return nil, fmt.Errorf("%s#session_transcript_archives[%s@%s]: %w", d.Path, sessionID, generation, ErrArchiveNotFound)
	}
	b := &ArchiveBlob{budget: d.budget}
	found := false
	err := d.ReadTx(ctx, func(tx *sql.Tx) error {
		found, b.blob = false, nil
		err := scanArchive(tx.QueryRowContext(ctx, "SELECT "+archiveColumns+archiveFrom+" WHERE a.session_id = ? AND a.generation = ?", sessionID, generation), &b.TranscriptArchive)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		if b.BlobBytes > MaxArchiveBlobBytes {
			return nil
		}
		// archive_blob may hold a value of another type in a damaged row:
		// read its bytes as a blob.
		return tx.QueryRowContext(ctx, "SELECT CAST(archive_blob AS BLOB) FROM session_transcript_archives WHERE session_id = ? AND generation = ?", sessionID, generation).Scan(&b.blob)
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s#session_transcript_archives[%s@%s]: %w", d.Path, sessionID, generation, ErrArchiveNotFound)
	}
	b.Where = d.ArchiveWhere(b.TranscriptArchive)
	if reason := b.check(); reason != "" {
		return b, &ArchiveError{Where: b.Where, Reason: reason}
	}
	b.Verified = true
	return b, nil
}

// check says why 9.6 would not trust the blob, or "".
func (b *ArchiveBlob) check() string {
	if b.BlobBytes > MaxArchiveBlobBytes {
		return fmt.Sprintf("blob of %d bytes, more than OpenClaw 2026.9.6 ever encodes (%d): not read", b.BlobBytes, MaxArchiveBlobBytes)
	}
	sum := sha256.Sum256(b.blob)
	if got := hex.EncodeToString(sum[:]); got != b.SHA256 {
		return fmt.Sprintf("failed verification: sha256 %s, the row says %s: OpenClaw 2026.9.6 refuses to publish or read it (\"Canonical SQLite transcript archive is corrupt\")", got, b.SHA256)
	}
	switch b.Encoding {
	case "zstd":
		if !bytes.HasPrefix(b.blob, zstdMagic) {
			return fmt.Sprintf("encoding 'zstd', but the blob is not a zstd frame (it starts %s)", startOf(b.blob))
		}
	case "identity":
		if bytes.HasPrefix(b.blob, zstdMagic) {
			return "encoding 'identity', but the blob is a zstd frame: read as it is, it is not a transcript"
		}
	default:
		return fmt.Sprintf("unknown encoding %q (OpenClaw 2026.9.6 writes 'identity' or 'zstd')", b.Encoding)
	}
	return ""
}

// startOf shows the first bytes of a blob in a message.
func startOf(b []byte) string {
	n := min(len(b), 8)
	if n == 0 {
		return "empty"
	}
	return fmt.Sprintf("% x", b[:n])
}

// WindowBytes is the memory a decoder of the blob needs besides what it
// hands out: the window its zstd frame asks for (0 for 'identity'). A
// frame asking for more than 9.6's decoder allows fails as it is read.
func (b *ArchiveBlob) WindowBytes() int64 {
	if b.Encoding != "zstd" {
		return 0
	}
	var h zstd.Header
	if h.Decode(b.blob) != nil || h.WindowSize > maxArchiveWindow {
		return 0
	}
	// a block beside the window
	return int64(max(h.WindowSize, zstd.MinWindowSize)) + 128<<10
}

// Reader streams the archived transcript: the blob as it is (identity) or
// decompressed (zstd). A zstd stream that does not decode fails its Read
// with an *ArchiveError. Nothing but the blob and the decoder's window
// (WindowBytes) is held: the text is produced as it is read. The caller
// holds WindowBytes in the run's budget while it reads (Decoded does).
// Close releases the decoder.
func (b *ArchiveBlob) Reader() (io.ReadCloser, error) {
	if b.Encoding != "zstd" {
		return io.NopCloser(bytes.NewReader(b.blob)), nil
	}
	// the window of the first frame (9.6 writes one), or node:zlib's limit
	// when the header does not read (the read then fails)
	window := uint64(maxArchiveWindow)
	var h zstd.Header
	if h.Decode(b.blob) == nil && h.WindowSize <= maxArchiveWindow {
		window = max(h.WindowSize, zstd.MinWindowSize)
	}
	zr, err := zstd.NewReader(bytes.NewReader(b.blob), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(window))
	if err != nil {
		return nil, err
	}
	return &archiveReader{zr: zr, where: b.Where}, nil
}

// Decoded is Reader with WindowBytes held in the run's budget until Close.
func (b *ArchiveBlob) Decoded(ctx context.Context) (io.ReadCloser, error) {
	window := b.WindowBytes()
	if err := b.budget.Acquire(ctx, window); err != nil {
		return nil, &ArchiveError{Where: b.Where, Reason: "not decoded: " + oneLineErr(err)}
	}
	r, err := b.Reader()
	if err != nil {
		b.budget.Release(window)
		return nil, err
	}
	return &heldReader{ReadCloser: r, release: func() { b.budget.Release(window) }}, nil
}

// heldReader gives budget back when it is closed.
type heldReader struct {
	io.ReadCloser
	release func()
	once    sync.Once
}

func (h *heldReader) Close() error {
	err := h.ReadCloser.Close()
	h.once.Do(h.release)
	return err
}

// archiveReader turns a decoding failure into an *ArchiveError.
type archiveReader struct {
	zr    *zstd.Decoder
	where string
	n     int64
}

func (r *archiveReader) Read(p []byte) (int, error) {
	n, err := r.zr.Read(p)
	r.n += int64(n)
	if err != nil && err != io.EOF {
		err = &ArchiveError{Where: r.where, Reason: fmt.Sprintf("does not decompress after %d bytes (zstd: %s)", r.n, oneLineErr(err))}
	}
	return n, err
}

func (r *archiveReader) Close() error { r.zr.Close(); return nil }

// DecodedSize decodes the archive without keeping it, at most limit+1
// bytes, and returns the decoded size (limit+1 meaning "more than limit"):
// an undecodable zstd stream is an *ArchiveError.
func (b *ArchiveBlob) DecodedSize(ctx context.Context, limit int64) (int64, error) {
	r, err := b.Decoded(ctx)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return io.Copy(io.Discard, &ctxReader{ctx: ctx, r: io.LimitReader(r, limit+1)})
}

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// DerivedName is the name 9.6 publishes a pending row as
// (resolveRegisteredSqliteTranscriptArchiveName). ok is false when
// created_at is not a JavaScript Date (9.6 would then stamp the time of the
// publication).
func DerivedName(a TranscriptArchive) (name string, ok bool) {
	stamp, ok := jsISOString(a.CreatedAt)
	if !ok {
		return "", false
	}
	id := a.SessionID
	if len(id) > 96 {
		sum := sha256.Sum256([]byte(id))
		id = "session-" + hex.EncodeToString(sum[:])
	}
	name = id + ".jsonl." + a.Reason + "." + strings.ReplaceAll(stamp, ":", "-")
	if a.Generation != "" {
		name += "." + a.Generation
	}
	if a.Encoding == "zstd" {
		name += ".zst"
	}
	return name, true
}

// jsISOString is Date.prototype.toISOString of a millisecond time; ok is
// false outside the Date range (±8.64e15 ms).
func jsISOString(ms int64) (string, bool) {
	const limit = 864e13
	if ms < -limit || ms > limit {
		return "", false
	}
	t := time.UnixMilli(ms).UTC()
	rest := t.Format("-01-02T15:04:05.000Z")
	switch y := t.Year(); {
	case y >= 0 && y <= 9999:
		return fmt.Sprintf("%04d", y) + rest, true
	case y < 0:
		return fmt.Sprintf("-%06d", -y) + rest, true
	default:
		return fmt.Sprintf("+%06d", y) + rest, true
	}
}

// DerivedFile is the .deleted/.reset file 9.6 publishes from a row, as found
// on disk.
type DerivedFile struct {
	Path string `json:"path"`
	// State: "same" (its bytes are the row's: sha256 archive_sha256),
	// "missing", "differs", "not-regular" (a FIFO, folder, ... where the file
	// should be), "unreadable", or "invalid-name" (archive_name is not a file
	// name in the sessions folder: 9.6 refuses to publish it).
	State string `json:"state"`
	// Detail says how it differs or why it could not be read.
	Detail string `json:"detail,omitempty"`
}

// CheckDerivedFile compares the derived file of a row with the row: the
// file at archive_name for a published row, at the name 9.6 will publish it
// as for a pending one. The file is opened only if it is a regular file
// (never a FIFO), read only when its size is the blob's, and hashed as it
// is read.
func (d *DB) CheckDerivedFile(a TranscriptArchive) DerivedFile {
	dir := ArtifactDir(d.Path)
	name := a.Name
	if a.PublishedAt == nil {
		if n, ok := DerivedName(a); ok {
			name = n
		}
	}
	if !plainFileName(name) {
		return DerivedFile{Path: filepath.Join(dir, "?"), State: "invalid-name", Detail: fmt.Sprintf("archive_name %q is not a file name in %s", name, dir)}
	}
	out := DerivedFile{Path: filepath.Join(dir, name)}
	f, info, err := durable.OpenRegular(out.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		out.State = "missing"
		return out
	case errors.Is(err, durable.ErrNotRegular):
		out.State, out.Detail = "not-regular", strings.TrimPrefix(err.Error(), out.Path+": ")
		return out
	case err != nil:
		out.State, out.Detail = "unreadable", oneLineErr(unwrapPath(err))
		return out
	}
	defer f.Close()
	if info.Size() != a.BlobBytes {
		out.State, out.Detail = "differs", fmt.Sprintf("%d bytes, the row's blob %d", info.Size(), a.BlobBytes)
		return out
	}
	h := sha256.New()
	// at most one byte past the size fstat gave: a file growing as it is
	// read differs anyway
	if _, err := io.Copy(h, io.LimitReader(f, a.BlobBytes+1)); err != nil {
		out.State, out.Detail = "unreadable", oneLineErr(unwrapPath(err))
		return out
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != a.SHA256 {
		out.State, out.Detail = "differs", fmt.Sprintf("sha256 %s, the row says %s", got, a.SHA256)
		return out
	}
	out.State = "same"
	return out
}

// plainFileName is 9.6's check of an archive name: path.resolve(dir, name)
// stays a direct child of dir with that base name.
func plainFileName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
