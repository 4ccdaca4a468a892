// Package durable writes files so that a crash, a full disk or a signal
// leaves either the old file or the complete new one, never a mix: a temp
// file in the same folder, fsync, rename (or link for a file that must not
// exist yet), fsync of the folder. It also holds what repair and doctor
// need around that: content digests, oc's backups (<file>.bak-oc-<stamp>),
// and opening a path only when it is a regular file (a FIFO or device is
// never opened blocking), with per-OS files for owners and link counts.
package durable
