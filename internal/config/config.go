// Package config reads .drvcheck.yaml, the per-repository defaults for the
// command-line flags and the list of exceptions. Paths in it are relative to
// the file's own folder, so a repository's config works from anywhere.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/fileerr"
)

// DefaultFile is read from the working folder when --config is not given.
const DefaultFile = ".drvcheck.yaml"

// File is the content of a config file. Every key mirrors a flag.
type File struct {
	Matrix     []string    `json:"matrix,omitempty"`
	Registry   []string    `json:"registry,omitempty"`
	Policy     []string    `json:"policy,omitempty"`
	Data       []string    `json:"data,omitempty"`
	Ignore     []string    `json:"ignore,omitempty"`
	FailOn     string      `json:"fail-on,omitempty"`
	Output     string      `json:"output,omitempty"`
	CUDACompat string      `json:"cuda-compat,omitempty"`
	Exceptions []Exception `json:"exceptions,omitempty"`

	// RegistryCA and InsecureRegistry mirror --registry-ca and --insecure-registry.
	RegistryCA       []string `json:"registry-ca,omitempty"`
	InsecureRegistry []string `json:"insecure-registry,omitempty"`

	// Path is where the file was read from; empty when none was.
	Path string `json:"-"`
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
// returns an empty File otherwise.
func Load(path string) (*File, error) {
	explicit := path != ""
	if !explicit {
		path = DefaultFile
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, fileerr.Reason(err))
	}
	var f File
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("config %s: %v", path, err)
	}
	f.Path = path
	dir := filepath.Dir(path)
	for _, list := range [][]string{f.Matrix, f.Policy, f.Data, f.RegistryCA} {
		for i, p := range list {
			if !filepath.IsAbs(p) {
				list[i] = filepath.Join(dir, p)
			}
		}
	}
	return &f, nil
}
