package nodefacts

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/imageref"
)

// An Imager gives each GPU node of a Set the driver image it pulls: the
// GPU Operator's profile (internal/operator) when the run has its
// configuration, else Labels.
type Imager interface {
	Apply(facts *Set, nodes []*corev1.Node)
}

// Labels is the lab's imager: the precompiled tag the node's own labels
// make, <branch>-<kernel>-<os tag>, with no repository.
type Labels struct{}

// Apply sets the tag of every node whose labels are all present.
func (Labels) Apply(facts *Set, nodes []*corev1.Node) {
	facts.Each(nodes, func(_ *corev1.Node, f *Facts) {
		if len(f.Problems) > 0 {
			return
		}
		f.Tag = imageref.DriverTag(f.Branch, f.Kernel, f.OSTag)
		f.CheckTag()
	})
}

// CheckTag turns a tag too long for a registry into a problem of the
// kernel label, its longest part, and drops the tag.
func (f *Facts) CheckTag() {
	if imageref.ValidTag(f.Tag) {
		return
	}
	f.Problems = append(f.Problems, Problem{Label: Kernel, Key: Kernel,
		Reason: fmt.Sprintf("invalid (the tag %s would be longer than the 128 characters an image tag may have)", f.Tag)})
	f.Tag = ""
}
