package catalog

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// MatrixHeader is the header a support-matrix CSV of precompiled images
// starts with; TagHeader starts one of whole tags (any driver image: not
// precompiled, custom, another OS).
const (
	MatrixHeader = "driver_branch,kernel,os_tag"
	TagHeader    = "tag"
	// ImageHeader starts one of whole references, repository:tag: any
	// image of the driver pod (the driver manager, GDS, GDRCopy).
	ImageHeader = "image"
	// ArchColumn may end a MatrixHeader or TagHeader matrix: the CPU
	// architecture the row's image is built for (amd64, arm64), one row
	// per architecture. A tag is one multi-arch index, so an arm64 node
	// needs its arm64 row; a matrix without the column says nothing of
	// architectures.
	ArchColumn = "arch"
)

// Row is one combination of a support matrix, or one whole tag.
type Row struct {
	Branch, Kernel, OSTag string
	FullTag               string       // a row of a TagHeader matrix
	Ref                   imageref.Ref // a row of an ImageHeader matrix
	Arch                  string       // the ArchColumn, when the matrix has it
	Line                  int
}

// Tag is the image tag the row stands for.
func (r Row) Tag() string {
	if r.Ref.Repository != "" {
		return r.Ref.String()
	}
	if r.FullTag != "" {
		return r.FullTag
	}
	return imageref.DriverTag(r.Branch, r.Kernel, r.OSTag)
}

// ReadMatrix reads a support-matrix CSV file the user named, through the
// run's opener (nil: as named).
func ReadMatrix(fsys *repofs.FS, path string) ([]Row, error) {
	data, err := fsys.ReadGiven(path)
	if err != nil {
		return nil, err
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
	got := strings.Join(trimAll(header), ",")
	base, withArch := strings.CutSuffix(got, ","+ArchColumn)
	parse := map[string]func([]string, int) (Row, error){MatrixHeader: parseRow, TagHeader: parseTagRow, ImageHeader: parseImageRow}[base]
	if parse == nil || withArch && base == ImageHeader {
		return nil, fmt.Errorf("%s:1: header is %q, want %q (or %q, one whole tag per row, or %q, one whole repository:tag per row; the first two may end with %q)", name, got, MatrixHeader, TagHeader, ImageHeader, ","+ArchColumn)
	}
	if withArch {
		parse = withArchColumn(parse)
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
		row, err := parse(trimAll(rec), line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rows = append(rows, row)
	}
}

// withArchColumn reads the row's last field as its architecture and the
// rest as parse does.
func withArchColumn(parse func([]string, int) (Row, error)) func([]string, int) (Row, error) {
	return func(rec []string, line int) (Row, error) {
		if len(rec) < 2 {
			return Row{}, fmt.Errorf("want the row's fields and its %s, got %d field(s)", ArchColumn, len(rec))
		}
		arch := rec[len(rec)-1]
		if !archName.MatchString(arch) {
			return Row{}, fmt.Errorf("%s %q is not an architecture such as amd64 or arm64", ArchColumn, arch)
		}
		row, err := parse(rec[:len(rec)-1], line)
		row.Arch = arch
		return row, err
	}
}

// archName is an OCI platform's architecture as images name them.
var archName = regexp.MustCompile(`^[a-z0-9]+$`)

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
	if nodefacts.CheckVersion(rec[0]) != nil && strings.Trim(rec[0], "0123456789") != "" {
		return Row{}, fmt.Errorf("driver_branch %q is neither a branch such as 550 nor a driver version such as 550.54.14", rec[0])
	}
	return Row{Branch: rec[0], Kernel: rec[1], OSTag: rec[2], Line: line}, nil
}

// parseTagRow reads a row of a TagHeader matrix: one tag, as OCI allows it.
func parseTagRow(rec []string, line int) (Row, error) {
	if len(rec) != 1 || rec[0] == "" {
		return Row{}, fmt.Errorf("want one field (%s), got %d", TagHeader, len(rec))
	}
	if !imageref.ValidTag(rec[0]) {
		return Row{}, fmt.Errorf("tag %q is not an image tag", rec[0])
	}
	return Row{FullTag: rec[0], Line: line}, nil
}

// parseImageRow reads a row of an ImageHeader matrix: repository:tag.
func parseImageRow(rec []string, line int) (Row, error) {
	if len(rec) != 1 || rec[0] == "" {
		return Row{}, fmt.Errorf("want one field (%s), got %d", ImageHeader, len(rec))
	}
	ref, err := imageref.Parse(rec[0])
	if err != nil || !imageref.ValidTag(ref.Tag) {
		return Row{}, fmt.Errorf("image %q is not repository:tag", rec[0])
	}
	return Row{Ref: ref, Line: line}, nil
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
