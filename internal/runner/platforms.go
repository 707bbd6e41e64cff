package runner

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/registry"
)

// addPlatforms gives GPU nodes of another architecture than amd64 the
// architectures their image is built for: a tag is one multi-arch index,
// so a tag that exists may still hold no image for an arm64 node
// (DRV001). A matrix with an arch column says so for its tags; else the
// tag's index is read from a registry the run lists. amd64 nodes are not
// asked for: no index lacks amd64, and a fleet's tags would each cost a
// request.
func addPlatforms(ctx context.Context, src catalog.Sources, cat *catalog.Catalog, facts *nodefacts.Set, nodes []*corev1.Node) error {
	var refs []string
	facts.Each(nodes, func(_ *corev1.Node, f *nodefacts.Facts) {
		if !otherArch(*f) {
			return
		}
		if a := cat.Arches(f.Tag); a != nil {
			f.Image.Platforms = a
		} else if slices.Contains(src.Registry, f.Image.Repository) {
			refs = append(refs, f.Image.Ref)
		}
	})
	if len(refs) == 0 {
		return nil
	}
	lister, err := registry.New(src.RegistryOptions)
	if err != nil {
		return err
	}
	found := lister.Platforms(ctx, refs)
	facts.Each(nodes, func(_ *corev1.Node, f *nodefacts.Facts) {
		if p, ok := found[f.Image.Ref]; ok && otherArch(*f) {
			f.Image.Platforms = p
		}
	})
	return nil
}

// otherArch: a managed GPU node of a known architecture other than amd64,
// with a tag to pull.
func otherArch(f nodefacts.Facts) bool {
	return f.GPU && f.Image.Managed && f.Tag != "" && f.Arch != "" && f.Arch != "amd64"
}
