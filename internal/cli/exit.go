// Package cli holds what every oc command shares: terminal streams, styles,
// progress reporting and the documented exit codes.
package cli

import (
	"errors"
	"fmt"
)

// Exit codes, documented once in `oc help exit-codes` and the man page.
const (
	ExitOK         = 0 // success; nothing to report (or everything fixed)
	ExitFindings   = 1 // check mode found something that needs attention
	ExitUsage      = 2 // bad flags or arguments
	ExitIncomplete = 3 // could not complete: I/O error, bad input, refused
	// ExitBusy: a live OpenClaw process holds what the command needs (a
	// transcript's <file>.lock, or the gateway for doctor --fix): nothing is
	// wrong with the input; retry later. 11 as restic's "failed to lock
	// repository".
	ExitBusy = 11
)

// ExitCodesHelp is the text of `oc help exit-codes`.
const ExitCodesHelp = `oc uses the same exit codes for every command:

  0  OK          the command completed; nothing needs attention (or --fix fixed
                 everything it can fix); a state dir without transcripts yet
  1  FINDINGS    check mode (repair --check, doctor without --fix) found
                 something that needs attention
  2  USAGE       unknown command, flag or help topic, bad argument or flag
                 value, invalid configuration
  3  INCOMPLETE  the command could not complete: unreadable or malformed input,
                 missing path, I/O error (disk full, read-only), a stale lock
                 (--break-stale-locks removes it), a refusal (undo of a file
                 that changed since its repair, a file that is not an
                 OpenClaw transcript), a file repair cannot fix (compressed,
                 or no transcript in it), a store doctor cannot read or
                 parse, a provider the chosen OpenClaw release does not build
                 in (oc replay: Bedrock under 2026.9.6, a plugin whose rules
                 oc does not guess; in --provider all and in comparisons of
                 releases that row says so and the exit is 0). Also after
                 SIGINT or SIGTERM: oc stops cleanly (locks released,
                 temporary files removed, each file either as it was or
                 completely repaired) and exits 3, not 130/143, so scripts
                 see one "could not complete" code
 11  BUSY        a live OpenClaw process holds what the command needs: a
                 transcript's <file>.lock (repair, repair --check and
                 --dry-run, repair --undo; --wait DURATION waits for it
                 first) or the running gateway (doctor --fix without
                 --force). Nothing is wrong with the input and nothing was
                 written: retry later (a CI job can retry on 11 and fail on 1
                 and 3). repair --check and --dry-run take no lock (they never
                 write, and a lock of theirs would make the gateway wait):
                 they look at it, and a file whose lock is live is reported
                 busy and not read, as a check of a file being written can
                 see a line cut off mid-append and fail a healthy transcript

oc grep exits as grep does: 0 when some session matched, 1 when none did, 2
for a bad pattern or flag, 3 when a session could not be read (the others are
still searched and their matches printed). oc show, oc browse and the other
reading commands exit 0, 2 or 3. oc export exits 3 with nothing written when
what it is given holds no session to export (a file that is not an OpenClaw
transcript, a database, a session with no transcript rows), 2 with --json (a
transcript is JSONL); export --all exports every session it can and exits 3
when it refused one. oc repair of a SQLite session exits 3: the session is
OpenClaw's, and the one-line error says what to run instead.

What repair --check flags, repair either fixes (0) or reports as unrepairable
(3); --check says which ("needs repair" or "unrepairable: <why>").
doctor --fix exits 0 when every fixable finding was fixed, even when findings
only a person can resolve remain (they are listed; doctor without --fix exits 1
on them), 3 when a fix failed, and 11 when it refused to write because the
gateway runs.

With several files, the most serious outcome wins, in this order: 3, then 11,
then 1, then 0. A run where one file could not be processed exits 3 even if
others were fine or busy; a run where a file was busy and the others were
read exits 11 even if one of them needs repair (its verdict is not complete:
retry). Errors are printed on stderr as one line: "oc: <file>:<line>: <what
went wrong>"; usage errors add a second line naming the help to read. With
--json, an error is instead one JSON object on stderr: {"error": "<what went
wrong>", "exitCode": N}; stdout then holds the report (when one was made)
or nothing.`

// ExitError carries an exit code up to Execute. Its message is printed once.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit wraps err with an exit code. A nil err gives a silent exit with that code.
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// Usagef is a usage error (exit 2).
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Incomplete wraps err as exit 3.
func Incomplete(err error) error { return &ExitError{Code: ExitIncomplete, Err: err} }

// Busy wraps err as exit 11 (a live lock: retry later).
func Busy(err error) error { return &ExitError{Code: ExitBusy, Err: err} }

// CodeOf maps an error to its exit code: ExitError carries it; any other error is 3.
func CodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitIncomplete
}
