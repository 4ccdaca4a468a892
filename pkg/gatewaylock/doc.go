// Package gatewaylock is OpenClaw's lock protocol for the files its
// gateway writes: <file>.lock holds the writer's pid, creation time and
// process start time; a lock is live while that process runs, stale when
// the process is gone or recycled, or after 30 minutes. oc takes the same lock before it replaces a transcript and never
// touches a file whose lock is live.
package gatewaylock
