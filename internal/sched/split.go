package sched

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// classesFor returns the classes spec is judged on: the fleet's classes,
// split further by the label keys spec reads that the fleet was not built
// on. Each spec thus pays only for its own keys: a workload pinned to nodes
// by kubernetes.io/hostname splits the fleet into single nodes for itself,
// not for every other workload. Splits are cached by their extra keys.
func (f *Fleet) classesFor(s *corev1.PodSpec) []*Class {
	extra := f.keys.extra(s)
	if len(extra.Labels) == 0 && !extra.ByName {
		return f.Classes
	}
	id := extra.id()
	if cs, ok := f.splits[id]; ok {
		return cs
	}
	var cs []*Class
	for _, c := range f.Classes {
		cs = append(cs, group(c.Nodes, extra)...)
	}
	f.splits[id] = cs
	return cs
}

// extra returns the keys s reads that k lacks.
func (k Keys) extra(s *corev1.PodSpec) Keys {
	out := Keys{Labels: map[string]bool{}}
	out.Add(s)
	for key := range out.Labels {
		if k.Labels[key] {
			delete(out.Labels, key)
		}
	}
	out.ByName = out.ByName && !k.ByName
	return out
}

// id names a key set, for caching.
func (k Keys) id() string {
	keys := make([]string, 0, len(k.Labels))
	for key := range k.Labels {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	id := strings.Join(keys, "\x00")
	if k.ByName {
		id += "\x01name"
	}
	return id
}
