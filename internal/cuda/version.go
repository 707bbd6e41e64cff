package cuda

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Version is a CUDA release, e.g. 12.8.1.
type Version struct{ Major, Minor, Patch int }

// ParseVersion reads "12", "12.8" or "12.8.1"; missing parts are 0.
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		return Version{}, fmt.Errorf("CUDA version %q: want MAJOR[.MINOR[.PATCH]]", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || strings.Trim(p, "0123456789") != "" {
			return Version{}, fmt.Errorf("CUDA version %q: want MAJOR[.MINOR[.PATCH]]", s)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Compare orders versions.
func (v Version) Compare(w Version) int {
	return cmp.Or(cmp.Compare(v.Major, w.Major), cmp.Compare(v.Minor, w.Minor), cmp.Compare(v.Patch, w.Patch))
}
