package operator

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a GPU Operator release, e.g. v26.7.0.
type Version struct{ Major, Minor, Patch int }

// Newest is the newest release whose OS tag rules drvcheck knows; a run
// that cannot tell the operator's version assumes it, and says so.
var Newest = Version{26, 7, 0}

var versionRe = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$`)

// ParseVersion reads "v26.7.0" (a leading v optional, a suffix such as
// -rc.1 ignored).
func ParseVersion(s string) (Version, error) {
	m := versionRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, fmt.Errorf("operator version %q: want vMAJOR.MINOR.PATCH, e.g. v26.7.0", s)
	}
	n := func(i int) int { x, _ := strconv.Atoi(m[i]); return x }
	return Version{n(1), n(2), n(3)}, nil
}

func (v Version) String() string { return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch) }

// AtLeast says whether v is release major.minor or a later one: the
// operator's behaviour changes by release (OS tags here, restart-only
// upgrades and per-NVIDIADriver upgrade scopes from v26.7).
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// OSTag is the OS part of the tag the operator at version v writes for a
// node whose NFD labels say id and versionID (state_manager.go and
// nodepool.go): rocky keeps its major version from v26.3, rhel from 10 in
// v26.3 and always from v26.7, ol from v26.7.
func OSTag(id, versionID string, v Version) string {
	major, _, _ := strings.Cut(versionID, ".")
	n, _ := strconv.Atoi(major)
	switch {
	case v.AtLeast(26, 7) && (id == "rhel" || id == "rocky" || id == "ol"),
		v.AtLeast(26, 3) && id == "rocky",
		v.AtLeast(26, 3) && id == "rhel" && n >= 10:
		return id + major
	}
	return id + versionID
}
