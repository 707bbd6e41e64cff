package sandbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The parent and a child speak in frames over the child's standard input
// and output: a request is the job's name and its bytes, each after its
// length; an answer is a status byte, then the answer's (or the error's)
// bytes after their length. Lengths are 8 bytes, big-endian.

const (
	answerOK  = 'O'
	answerErr = 'E'
)

// maxName bounds a job's name as read: names are the few words jobs
// register under.
const maxName = 256

func writeRequest(w *bufio.Writer, name string, req []byte) error {
	if err := writeBytes(w, []byte(name)); err != nil {
		return err
	}
	if err := writeBytes(w, req); err != nil {
		return err
	}
	return w.Flush()
}

func readRequest(r *bufio.Reader) (string, []byte, error) {
	n, err := readLen(r)
	if err != nil {
		return "", nil, err
	}
	if n > maxName {
		return "", nil, fmt.Errorf("a job name of %d bytes", n)
	}
	name := make([]byte, n)
	if _, err := io.ReadFull(r, name); err != nil {
		return "", nil, unexpected(err)
	}
	n, err = readLen(r)
	if err != nil {
		return "", nil, unexpected(err)
	}
	req := make([]byte, n) // the parent is drvcheck itself: its lengths are true
	if _, err := io.ReadFull(r, req); err != nil {
		return "", nil, unexpected(err)
	}
	return string(name), req, nil
}

func writeAnswer(w *bufio.Writer, ok bool, answer []byte) error {
	status := byte(answerErr)
	if ok {
		status = answerOK
	}
	if err := w.WriteByte(status); err != nil {
		return err
	}
	if err := writeBytes(w, answer); err != nil {
		return err
	}
	return w.Flush()
}

// readAnswerHead reads an answer's status and length; the caller bounds
// the length before it reads that much.
func readAnswerHead(r *bufio.Reader) (byte, uint64, error) {
	status, err := r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	n, err := readLen(r)
	return status, n, unexpected(err)
}

func writeBytes(w *bufio.Writer, b []byte) error {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func readLen(r *bufio.Reader) (uint64, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(n[:]), nil
}

// unexpected is err, where an end of input inside a frame is not a clean
// end.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
