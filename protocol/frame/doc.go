// Package frame is the toolkit's one scanner of LSP Content-Length frames
// (spec §1.1–§1.3): the header part, at most [wire.MaxHeaderBytes] bytes its
// final CRLFCRLF included, then exactly Content-Length bytes of content.
//
// It reads a stream ([Reader], over a bufio.Reader) or a buffer ([Split],
// [ScanHeader]) with the same code, in one of two modes:
//
//   - [Strict] is the fault table of §1.3, what the toolkit's server and
//     client enforce: a header line that does not end with CRLF, a header
//     part that is not ASCII, a line that is not "Name: value", a
//     Content-Length that is not a decimal integer without sign or above the
//     limit, a Content-Type charset other than utf-8/utf8 (any case), no
//     Content-Length, a header part over 4096 bytes. Field names are matched
//     without regard to case or surrounding space; of two Content-Length
//     fields the last counts.
//   - [Lenient] is what the conformance suite and the saboteur need to read
//     deliberately broken frames and say exactly what is wrong: the charset
//     and unknown fields are not faults (the caller judges them from
//     [Header.Fields]), non-ASCII header bytes are kept, a field name is
//     matched without regard to case but as written (" Content-Length" is
//     another field), a second Content-Length with another value is a fault
//     ([FaultSecondLength]), and the size limit is applied once the header
//     part is whole. Every fault keeps its facts: the offset and bytes of the
//     line at fault, the complete lines before it, the declared length and,
//     for content cut short, the bytes that did arrive.
//
// Both modes are bounded: no more than 4096 bytes of header are ever
// examined, buffered for, or waited for (a longer header part is a
// [FaultHeaderTooLong] as soon as its first 4096 bytes are there), and a
// Content-Length above the limit is refused before any content is read.
// Faults are [*Error] values, classified by their [Fault] with errors.As.
//
// Strict header faults are reported in the order rpc always reported them:
// a header part without end within 4096 bytes first, then the first faulty
// line; lenient faults in the order the lines arrive (the suite reads line
// by line), a header part too long only when every line before the bound
// was sound.
package frame
