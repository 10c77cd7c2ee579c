package rpc

import (
	"errors"
	"io"
	"slices"
)

// firstContentChunk is how much of a content part is allocated before any
// of it arrived.
const firstContentChunk = 64 << 10

// readContent reads an n-byte content part from r. Its buffer grows with
// the bytes that arrive (it at most doubles what has been read), so a peer
// that announces a large part and sends little of it makes the reader hold
// about what it sent, never what it announced: 200 connections announcing
// 64 MiB each and sending a few bytes held 1.5 GB when the whole part was
// allocated up front (issue 12, a slowloris client). A stream that ends
// first is io.ErrUnexpectedEOF.
func readContent(r io.Reader, n int) ([]byte, error) {
	if n <= firstContentChunk {
		buf := make([]byte, n)
		_, err := io.ReadFull(r, buf)
		return buf, unexpected(err)
	}
	buf := make([]byte, 0, firstContentChunk)
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(len(buf), n-len(buf)))
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err != nil && len(buf) < n {
			return buf, unexpected(err)
		}
	}
	return buf, nil
}

// unexpected turns the io.EOF of a stream that ended inside a content part
// into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
