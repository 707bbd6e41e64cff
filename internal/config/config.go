// Package config holds drvcheck's options, one struct per concern (loading,
// registry, rules, cluster, output), and reads .drvcheck.yaml, the
// per-repository defaults of the same options and the list of exceptions.
// Each option is spelled once, as a struct field whose name is both the
// flag and the file's key; paths in the file are relative to its own
// folder, so a repository's config works from anywhere.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// DefaultFile is read from the working folder when --config is not given.
const DefaultFile = ".drvcheck.yaml"

// File is a config file: options by key, and exceptions.
type File struct {
	Exceptions []Exception
	// Path is where the file was read from; empty when none was.
	Path string

	options map[string]json.RawMessage
	// trusted is --trust-config; root is the repository the file is in,
	// where a repository's config may name paths.
	trusted bool
	root    string
}

// Exception suppresses one rule on one object, for a reason, until an
// optional date.
type Exception struct {
	Rule    string `json:"rule"`
	Object  string `json:"object"` // Kind/namespace/name, or Kind/name for cluster-scoped kinds
	Reason  string `json:"reason"`
	Expires string `json:"expires,omitempty"` // YYYY-MM-DD
}

// Load reads path; with path empty it reads DefaultFile when present and
// returns an empty File otherwise. A key that is no option, a key given
// twice, or a value of the wrong type, is an error naming the file and the
// key. Unless trusted, the file is the repository's: it is read only
// inside its repository (a link out of it is refused), and Apply refuses
// what a repository may not set (trust.go).
func Load(path string, trusted bool) (*File, error) {
	explicit := path != ""
	if !explicit {
		path = DefaultFile
	}
	fsys, err := repofs.New(repofs.RootsOf(path), repofs.Limits{File: maxFile, Total: maxFile})
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	data, err := fsys.ReadGiven(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config %w", err)
	}
	f := &File{Path: path, options: map[string]json.RawMessage{}, trusted: trusted, root: repofs.RepoRoot(filepath.Dir(path))}
	// Strict: a key given twice is an error, as in manifests, not the
	// last one silently winning.
	if err := yaml.UnmarshalStrict(data, &f.options); err != nil {
		return nil, fmt.Errorf("config %s: %s", path, oneline.Error(err))
	}
	if raw, ok := f.options["exceptions"]; ok {
		delete(f.options, "exceptions")
		if err := strict(raw, &f.Exceptions); err != nil {
			return nil, fmt.Errorf("config %s: exceptions: %v", path, err)
		}
	}
	known := keys()
	for k, raw := range f.options {
		t, ok := known[k]
		if !ok {
			return nil, fmt.Errorf("config %s: unknown key %q (want exceptions or one of %s)", path, k, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
			return nil, fmt.Errorf("config %s: %s: %v", path, k, err)
		}
	}
	return f, nil
}

// maxFile bounds a config file: a few kilobytes of options and exceptions.
const maxFile = 4 << 20

func strict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
