package cuda

import "fmt"

// Compat says which driver floor a CUDA release needs.
type Compat string

const (
	// Minor is CUDA minor-version compatibility: every release of a major
	// runs on that major's floor (11: 450, 12: 525, 13: 580), with a limited
	// feature set (PTX JIT from a newer toolkit can fail).
	Minor Compat = "minor"
	// Strict is the toolkit's own minimum driver (12.8.1 needs 570), the
	// full feature set.
	Strict Compat = "strict"
)

// ParseCompat reads the --cuda-compat value; empty means Minor.
func ParseCompat(s string) (Compat, error) {
	switch Compat(s) {
	case "", Minor:
		return Minor, nil
	case Strict:
		return Strict, nil
	}
	return "", fmt.Errorf("--cuda-compat %q: want minor or strict", s)
}

// Floor returns the oldest driver branch that runs v, and false when the
// tables know nothing about v's major or older ones (CUDA 10 and before).
//
// For a release newer than the tables (a CUDA 14, a 13.2), the floor of the
// newest known release below it is returned: newer CUDA never runs on an
// older driver, so that is a lower bound and never a false alarm. Strict is
// never below Minor.
func (c Compat) Floor(v Version) (int, bool) {
	floor, ok := minorFloor(v)
	if c != Strict {
		return floor, ok
	}
	if b, found := toolkitFloor(v); found && b > floor {
		return b, true
	}
	return floor, ok
}

// minorFloor is the floor of v's major, or of the newest major below it.
func minorFloor(v Version) (int, bool) {
	best, floor := -1, 0
	for major, b := range minorFloors {
		if major <= v.Major && major > best {
			best, floor = major, b
		}
	}
	return floor, best >= 0
}

// toolkitFloor is the minimum driver of the newest listed release not newer
// than v (11.5.2 takes 11.5.0's row, which the notes give for all of 11.5).
func toolkitFloor(v Version) (int, bool) {
	for i := len(toolkitFloors) - 1; i >= 0; i-- {
		if toolkitFloors[i].cuda.Compare(v) <= 0 {
			return toolkitFloors[i].branch, true
		}
	}
	return 0, false
}
