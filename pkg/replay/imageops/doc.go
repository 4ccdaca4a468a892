// Package imageops holds the image operations of the replay sanitize stage,
// the way OpenClaw does them (src/agents/tool-images.ts,
// src/media/image-ops.ts, src/media/base64.ts): base64 canonicalisation and
// MIME sniffing, header dimensions, and re-encoding an image that is over
// the limits (EXIF orientation, area resampling, JPEG at decreasing
// qualities). OpenClaw re-encodes with sharp (mozjpeg); this package
// re-encodes with Go's JPEG encoder at the same side and quality steps, so
// the bytes differ but type and dimensions agree. Decoding follows sharp's
// leniency (GIF canvas, PNG with bad CRCs or cut-short data, WebP).
package imageops
