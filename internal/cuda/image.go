package cuda

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/drvcheck/drvcheck/internal/imageref"
)

// cudaRepos are the repositories of NVIDIA's CUDA base images, whose tags
// start with the CUDA release: nvcr.io/nvidia/cuda:13.0.0-base-ubuntu24.04.
// Docker Hub's nvidia/cuda holds the same images.
var cudaRepos = map[string]bool{
	"nvcr.io/nvidia/cuda":         true,
	"nvidia/cuda":                 true,
	"docker.io/nvidia/cuda":       true,
	"index.docker.io/nvidia/cuda": true,
}

var cudaTag = regexp.MustCompile(`^(\d+\.\d+(?:\.\d+)?)(?:-|$)`)

// Policy turns images into driver floors: the compatibility mode and the
// user's additions to the image table (checked before the built-in one).
// The zero Policy is minor-version compatibility with the built-in table.
type Policy struct {
	Compat Compat
	Images Table
}

// Floor is the oldest driver branch an image runs on, and why.
type Floor struct {
	Branch int
	CUDA   Version
	// Source names where the CUDA release came from: "image tag", or the
	// table row's source (a release-notes URL, or "--data").
	Source string
}

// Describe explains the floor for messages: "CUDA 13.0.0 from the image
// tag, minor-version compatibility".
func (f Floor) Describe(c Compat) string {
	mode := "minor-version compatibility"
	if c == Strict {
		mode = "the toolkit's own minimum driver (--cuda-compat strict)"
	}
	from := f.Source
	if from != "image tag" {
		from = "the image table (" + from + ")"
	} else {
		from = "the image tag"
	}
	return fmt.Sprintf("CUDA %s from %s, %s", f.CUDA, from, mode)
}

// ImageFloor returns the floor of image, and false when its CUDA release is
// unknown (not a CUDA base image and in no table) or older than the tables.
func (p Policy) ImageFloor(image string) (Floor, bool) {
	ref := imageref.Split(image)
	repo, tag := ref.Repository, ref.Tag
	if tag == "" {
		return Floor{}, false
	}
	f := Floor{}
	if m := cudaTag.FindStringSubmatch(tag); m != nil && cudaRepos[repo] {
		v, err := ParseVersion(m[1])
		if err != nil {
			return Floor{}, false
		}
		f.CUDA, f.Source = v, "image tag"
	} else {
		release, _, _ := strings.Cut(tag, "-")
		e, ok := p.Images.lookup(repo, tag, release)
		if !ok {
			e, ok = builtinImages.lookup(repo, tag, release)
		}
		if !ok {
			return Floor{}, false
		}
		f.CUDA, f.Source = e.CUDA, e.Source
	}
	b, ok := p.Compat.Floor(f.CUDA)
	f.Branch = b
	return f, ok
}
