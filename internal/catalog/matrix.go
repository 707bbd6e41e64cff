package catalog

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/drvcheck/drvcheck/internal/fileerr"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// MatrixHeader is the header a support-matrix CSV must start with.
const MatrixHeader = "driver_branch,kernel,os_tag"

// Row is one combination of a support matrix.
type Row struct {
	Branch, Kernel, OSTag string
	Line                  int
}

// Tag is the image tag the row stands for.
func (r Row) Tag() string { return nodefacts.TagFor(r.Branch, r.Kernel, r.OSTag) }

// ReadMatrix reads a support-matrix CSV file.
func ReadMatrix(path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	return ParseMatrix(path, data)
}

// ParseMatrix parses support-matrix CSV data read from name. The header is
// checked, fields are trimmed, blank lines are skipped, and a malformed row
// is an error naming its line.
func ParseMatrix(name string, data []byte) ([]Row, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, want the header %s", name, MatrixHeader)
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	if got := strings.Join(trimAll(header), ","); got != MatrixHeader {
		return nil, fmt.Errorf("%s:1: header is %q, want %q", name, got, MatrixHeader)
	}
	var rows []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := r.FieldPos(0)
		row, err := parseRow(trimAll(rec), line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rows = append(rows, row)
	}
}

func parseRow(rec []string, line int) (Row, error) {
	if len(rec) != 3 {
		return Row{}, fmt.Errorf("want 3 fields (%s), got %d", MatrixHeader, len(rec))
	}
	for i, f := range rec {
		if f == "" {
			return Row{}, fmt.Errorf("field %s is empty", strings.Split(MatrixHeader, ",")[i])
		}
		if strings.ContainsAny(f, " \t") {
			return Row{}, fmt.Errorf("field %s %q contains a space", strings.Split(MatrixHeader, ",")[i], f)
		}
	}
	if strings.Trim(rec[0], "0123456789") != "" {
		return Row{}, fmt.Errorf("driver_branch %q is not a branch number such as 550", rec[0])
	}
	return Row{Branch: rec[0], Kernel: rec[1], OSTag: rec[2], Line: line}, nil
}

func trimAll(rec []string) []string {
	out := make([]string, len(rec))
	for i, f := range rec {
		out[i] = strings.TrimSpace(f)
	}
	return out
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
