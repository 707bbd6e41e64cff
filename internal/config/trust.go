package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// A repository's .drvcheck.yaml comes with the pull request that changes
// it, so it may say what to check and how (rules, exceptions, the
// repository's own inputs), but not where results go, what drvcheck trusts
// or which credentials it uses, nor loosen the bounds that keep a hostile
// input from hanging the run. Those are the command line's, or a config's
// given --trust-config. docs/security.md lists both sets.

// untrusted says why a repository's config may not set the option f to
// raw, or "" when it may. cur is the option's value before the file.
func (file *File) untrusted(f field, raw json.RawMessage) string {
	if file.trusted {
		return ""
	}
	switch f.trust {
	case "cli":
		return "only the command line may set it, or a config given --trust-config: a repository's config must not choose where results go, what is trusted or which credentials are used"
	case "bound":
		if looser(f.value, raw) {
			return fmt.Sprintf("a repository's config may tighten this bound, not loosen it (now %s); --trust-config to allow", show(f.value))
		}
	}
	if f.path {
		if p := file.outside(f.value, raw); p != "" {
			return fmt.Sprintf("%s is outside the repository %s; a repository's config names its own files only (--trust-config to allow)", p, file.root)
		}
	}
	return ""
}

// looser says whether raw would loosen the bound held in v: a longer time
// or 0 (no limit), or a larger size.
func looser(v reflect.Value, raw json.RawMessage) bool {
	switch cur := v.Addr().Interface().(type) {
	case *Duration:
		var d Duration
		if json.Unmarshal(raw, &d) != nil {
			return false // Load has named the bad value
		}
		return d == 0 && *cur != 0 || d > *cur && *cur != 0
	case *Bytes:
		var b Bytes
		if json.Unmarshal(raw, &b) != nil {
			return false
		}
		return b > *cur
	}
	return false
}

func show(v reflect.Value) string {
	switch cur := v.Addr().Interface().(type) {
	case *Duration:
		return time.Duration(*cur).String()
	case *Bytes:
		return cur.String()
	}
	return fmt.Sprint(v.Interface())
}

// outside returns the first path raw gives, relative to the file, that
// is not in the file's repository, or "".
func (file *File) outside(v reflect.Value, raw json.RawMessage) string {
	var paths []string
	switch v.Addr().Interface().(type) {
	case *string:
		var p string
		if json.Unmarshal(raw, &p) != nil || p == "" {
			return ""
		}
		paths = []string{p}
	case *[]string:
		if json.Unmarshal(raw, &paths) != nil {
			return ""
		}
	}
	dir := filepath.Dir(file.Path)
	root, err := filepath.Abs(file.root)
	if err != nil {
		return dir
	}
	for _, written := range paths {
		// CHART=FILE and FORMAT=FILE: the file is the path.
		p := written
		if _, after, ok := strings.Cut(p, "="); ok {
			p = after
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil || !repofs.Within(abs, root) {
			return written
		}
	}
	return ""
}
