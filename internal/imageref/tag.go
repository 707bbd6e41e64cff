package imageref

import (
	"regexp"
	"strings"
)

// The OCI distribution spec's tag grammar, [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}.
var ociTag = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$`)

// ValidTag reports whether tag is a tag a registry can hold.
func ValidTag(tag string) bool { return ociTag.MatchString(tag) }

// DriverTag writes the driver image's tag, the one place its format is
// spelled: <version>-<kernel>-<os tag> for a precompiled driver
// (GetPrecompiledImagePath, nvidiadriver_types.go:672-696), <version>-<os
// tag> otherwise (kernel ""; resolveDriverTag, object_controls.go:3395-3400,
// 3423-3427). The driver pod's other images end in -<os tag> alike.
func DriverTag(version, kernel, osTag string) string {
	if kernel == "" {
		return version + "-" + osTag
	}
	return version + "-" + kernel + "-" + osTag
}

// SplitDriverTag is DriverTag's inverse for a precompiled tag. The branch
// is all digits and an OS tag (ubuntu22.04, rhel9.4) has no dash, so the
// kernel is what lies between the first and the last dash, dashes and all.
func SplitDriverTag(tag string) (branch, kernel, osTag string, ok bool) {
	branch, rest, ok1 := strings.Cut(tag, "-")
	i := strings.LastIndex(rest, "-")
	if !ok1 || i <= 0 || i == len(rest)-1 || strings.Trim(branch, "0123456789") != "" || branch == "" {
		return "", "", "", false
	}
	return branch, rest[:i], rest[i+1:], true
}

// TagVersion is the driver version a driver tag begins with: what lies
// before its first dash.
func TagVersion(tag string) (string, bool) {
	v, _, ok := strings.Cut(tag, "-")
	return v, ok
}
