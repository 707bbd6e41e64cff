package dra

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
)

// Extended resources backed by DRA (KEP-5004, DRAExtendedResource, GA and
// locked on in Kubernetes 1.37: pkg/features/kube_features.go:1487-1491 at
// v1.37.2). A DeviceClass with spec.extendedResourceName lets a pod ask
// for its devices as an extended resource: NVIDIA's DRA driver chart sets
// nvidia.com/gpu on gpu.nvidia.com whenever it installs resource.k8s.io/v1
// (k8s-dra-driver-gpu 22407113 deployments/helm/dra-driver-nvidia-gpu/
// templates/deviceclass-gpu.yaml:5-14). The scheduler's NodeResourcesFit
// leaves such a resource to the DRA plugin on a node whose allocatable has
// none of it (pkg/scheduler/framework/plugins/noderesources/fit.go:269-291,
// 783-785), which allocates that many devices of the class from the
// node's ResourceSlices. Only classes among the inputs count: NVIDIA's
// default classes stand in for claims, not for a driver that is installed.

// Extended are the resources DeviceClasses map, each to its class, and
// a judge that compiled their selectors when they were checked.
type Extended struct {
	mapped map[corev1.ResourceName]*resourcev1.DeviceClass
	j      *Judge
}

// ExtendedClasses maps each resource keep accepts that a DeviceClass names
// as its extendedResourceName to that class; nil when none does. Two
// classes of one name: the one created later, at the same time the first
// by name (resource/v1 types.go, DeviceClassSpec.ExtendedResourceName).
func ExtendedClasses(read []*resourcev1.DeviceClass, keep func(corev1.ResourceName) bool) *Extended {
	e := &Extended{mapped: map[corev1.ResourceName]*resourcev1.DeviceClass{}, j: NewJudge(map[string]Class{}, nil, "")}
	for _, dc := range read {
		if dc.Spec.ExtendedResourceName == nil {
			continue
		}
		name := corev1.ResourceName(*dc.Spec.ExtendedResourceName)
		if !keep(name) || e.j.refusedClass(dc) {
			continue
		}
		if old, ok := e.mapped[name]; !ok || later(dc, old) {
			e.mapped[name] = dc
		}
	}
	if len(e.mapped) == 0 {
		return nil
	}
	for _, dc := range e.mapped {
		e.j.classes[dc.Name] = classOf(dc)
	}
	return e
}

// Class is the class a resource maps to, or nil.
func (e *Extended) Class(name corev1.ResourceName) *resourcev1.DeviceClass {
	if e == nil {
		return nil
	}
	return e.mapped[name]
}

// refusedClass says whether the API server would refuse the class for a
// selector (Judge.refused): such a class is never created, so it maps
// nothing and does not hide a valid class of the same name.
func (j *Judge) refusedClass(dc *resourcev1.DeviceClass) bool {
	for _, expr := range classOf(dc).Selectors {
		if j.refused(expr) != "" {
			return true
		}
	}
	return false
}

// later says whether a wins over b for one extended resource name.
func later(a, b *resourcev1.DeviceClass) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	}
	return a.Name < b.Name
}

// Offers are, by node, how many devices of each mapped class the node's
// devices hold: what the DRA plugin can give a pod that asks for the
// class's extended resource there. Nil on nil.
func (e *Extended) Offers(byNode map[string][]Device) map[string]map[corev1.ResourceName]int64 {
	if e == nil {
		return nil
	}
	names := mapKeys(e.mapped)
	slices.Sort(names)
	out := map[string]map[corev1.ResourceName]int64{}
	seen := map[string]map[corev1.ResourceName]int64{} // by the node's devices, counted once
	for node, devs := range byNode {
		if len(devs) == 0 {
			continue
		}
		keys := make([]string, len(devs))
		for i, d := range devs {
			keys[i] = deviceKey(d)
		}
		k := strings.Join(keys, "\x01")
		counts, ok := seen[k]
		if !ok {
			counts = map[corev1.ResourceName]int64{}
			for _, name := range names {
				n, _ := e.j.count(group{devices: devs, keys: keys}, Request{Class: e.mapped[name].Name})
				counts[name] = int64(n)
			}
			seen[k] = counts
		}
		out[node] = counts
	}
	return out
}
