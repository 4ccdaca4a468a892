// Package jsjson is JSON with JavaScript's semantics: JSON.parse and
// JSON.stringify as Node.js runs them, and the string operations OpenClaw
// applies to what it parsed.
//
// JavaScript strings are sequences of UTF-16 code units and may hold lone
// surrogates (a `\ud83d` escape cut from its pair). Go strings from this
// package carry them in WTF-8: a lone surrogate is the three-byte sequence
// UTF-8 would use for its code point (ED A0 80 for U+D800), which no valid
// UTF-8 text contains. Every other byte sequence is well-formed UTF-8:
// invalid bytes in the input become U+FFFD the way Node.js decodes a file
// (WHATWG UTF-8 decoding, one U+FFFD per maximal invalid subpart).
//
// Numbers are IEEE doubles as in JavaScript: Parse rounds integers beyond
// 2^53 and FormatNumber spells them as Number.prototype.toString does.
package jsjson
