package nodefacts

import (
	"regexp"
	"strings"
)

// The OCI distribution spec's tag grammar, [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127};
// a part of a tag may hold its characters but never a space, "/", ":" or
// "@", which would make another reference or none (" 550" from a padded
// label, say).
var (
	ociTag  = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$`)
	tagPart = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
)

// ValidTag reports whether tag is a tag a registry can hold.
func ValidTag(tag string) bool { return ociTag.MatchString(tag) }

// TagFor builds a precompiled driver image tag,
// <driver branch>-<kernel version>-<os tag>.
func TagFor(branch, kernel, osTag string) string {
	return branch + "-" + kernel + "-" + osTag
}

// SplitTag is TagFor's inverse. The branch is all digits and an OS tag
// (ubuntu22.04, rhel9.4) has no dash, so the kernel is what lies between
// the first and the last dash, dashes and all.
func SplitTag(tag string) (branch, kernel, osTag string, ok bool) {
	branch, rest, ok1 := strings.Cut(tag, "-")
	i := strings.LastIndex(rest, "-")
	if !ok1 || i <= 0 || i == len(rest)-1 || strings.Trim(branch, "0123456789") != "" || branch == "" {
		return "", "", "", false
	}
	return branch, rest[:i], rest[i+1:], true
}

// SplitRef splits an image reference into its repository and its tag
// (or digest).
func SplitRef(ref string) (repository, tag string) {
	if i := strings.LastIndex(ref, "@"); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	slash := strings.LastIndex(ref, "/")
	if i := strings.LastIndex(ref, ":"); i > slash {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}
