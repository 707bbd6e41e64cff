package nodefacts

import corev1 "k8s.io/api/core/v1"

// Set holds the facts of every node of a run, read once: the input
// document, the drain sections, the workload checks, status and plan all
// take them from here rather than reading labels again.
type Set struct {
	list  []Facts
	index map[string]int
}

// All reads the facts of nodes, in their order, each GPU node with the
// image the lab's labels make (Labels): for a run without the operator's
// configuration.
func All(nodes []*corev1.Node) *Set { return With(nodes, Labels{}) }

// With reads the facts of nodes, in their order, and lets im give each
// GPU node its image: the tag is computed once, by one Imager.
func With(nodes []*corev1.Node, im Imager) *Set {
	s := &Set{list: make([]Facts, len(nodes)), index: make(map[string]int, len(nodes))}
	for i, n := range nodes {
		s.list[i] = Of(n)
		s.index[n.Name] = i
	}
	im.Apply(s, nodes)
	return s
}

// List returns the facts in node order.
func (s *Set) List() []Facts { return s.list }

// Get returns the facts of the node named name.
func (s *Set) Get(name string) (Facts, bool) {
	i, ok := s.index[name]
	if !ok {
		return Facts{}, false
	}
	return s.list[i], true
}

// GPU counts the GPU nodes.
func (s *Set) GPU() int {
	n := 0
	for _, f := range s.list {
		if f.GPU {
			n++
		}
	}
	return n
}

// Each lets fn change the facts of every node, with the node they were
// read from (an operator profile sets the image each node needs).
func (s *Set) Each(nodes []*corev1.Node, fn func(*corev1.Node, *Facts)) {
	for i := range s.list {
		fn(nodes[i], &s.list[i])
	}
}
