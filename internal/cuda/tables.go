package cuda

import (
	"embed"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

//go:embed data/*.csv
var files embed.FS

// The embedded tables, read once at start. They are part of the program,
// not input: a malformed row is a build mistake that the package tests
// catch, so reading them panics rather than returning an error.
var (
	// minorFloors maps a CUDA major to its minor-version-compatibility floor.
	minorFloors = readMinorFloors()
	// toolkitFloors lists each CUDA release's own minimum driver branch, ascending.
	toolkitFloors = readToolkitFloors()
	// builtinImages maps NGC framework releases to their CUDA release.
	builtinImages = readImages()
)

type toolkitRow struct {
	cuda   Version
	branch int
}

func readMinorFloors() map[int]int {
	out := map[int]int{}
	for _, r := range mustRead("data/minor-version-compat.csv", "cuda_major", "min_driver_branch") {
		major, err1 := strconv.Atoi(r[0])
		branch, err2 := strconv.Atoi(r[1])
		if err1 != nil || err2 != nil {
			panic(fmt.Sprintf("cuda: minor-version-compat.csv: bad row %q", r))
		}
		out[major] = branch
	}
	return out
}

func readToolkitFloors() []toolkitRow {
	var out []toolkitRow
	for _, r := range mustRead("data/toolkit-min-driver.csv", "cuda", "min_driver_linux") {
		v, err1 := ParseVersion(r[0])
		b, err2 := nodefacts.ParseBranch(r[1])
		if err1 != nil || err2 != nil {
			panic(fmt.Sprintf("cuda: toolkit-min-driver.csv: bad row %q", r))
		}
		out = append(out, toolkitRow{v, b})
	}
	slices.SortFunc(out, func(a, b toolkitRow) int { return a.cuda.Compare(b.cuda) })
	return out
}

func readImages() Table {
	t := Table{}
	for _, r := range mustRead("data/ngc-framework-cuda.csv", "image", "release", "cuda", "source") {
		v, err := ParseVersion(r[2])
		if err != nil {
			panic(fmt.Sprintf("cuda: ngc-framework-cuda.csv: bad row %q", r))
		}
		t.add(r[0], r[1], Entry{CUDA: v, Source: r[3]})
	}
	return t
}

// mustRead returns the rows of an embedded CSV after checking that its
// header starts with the given columns.
func mustRead(name string, columns ...string) [][]string {
	f, err := files.Open(name)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.LazyQuotes = true // the reference copies quote inside unquoted fields
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 || len(rows[0]) < len(columns) || !slices.Equal(rows[0][:len(columns)], columns) {
		panic(fmt.Sprintf("cuda: %s: want header %v (%v)", name, columns, err))
	}
	return rows[1:]
}
