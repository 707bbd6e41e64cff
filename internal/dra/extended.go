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

// ExtendedClasses maps each resource keep accepts that a DeviceClass names
// as its extendedResourceName to that class. Two classes of one name: the
// one created later, at the same time the first by name (resource/v1
// types.go, DeviceClassSpec.ExtendedResourceName).
func ExtendedClasses(read []*resourcev1.DeviceClass, keep func(corev1.ResourceName) bool) map[corev1.ResourceName]*resourcev1.DeviceClass {
	out := map[corev1.ResourceName]*resourcev1.DeviceClass{}
	j := NewJudge(nil, nil, "")
	for _, dc := range read {
		if dc.Spec.ExtendedResourceName == nil {
			continue
		}
		name := corev1.ResourceName(*dc.Spec.ExtendedResourceName)
		if !keep(name) || refusedClass(j, dc) {
			continue
		}
		if old, ok := out[name]; !ok || later(dc, old) {
			out[name] = dc
		}
	}
	return out
}

// refusedClass says whether the API server would refuse the class for a
// selector (Judge.refused): such a class is never created, so it maps
// nothing and does not hide a valid class of the same name.
func refusedClass(j *Judge, dc *resourcev1.DeviceClass) bool {
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

// ExtendedOffers are, by node, how many devices of each class mapped
// (ExtendedClasses: selectors the API server accepts) the node's devices
// hold: what the DRA plugin can give a pod that asks for
// the class's extended resource there. Nil when no class maps one.
func ExtendedOffers(mapped map[corev1.ResourceName]*resourcev1.DeviceClass, byNode map[string][]Device) map[string]map[corev1.ResourceName]int64 {
	if len(mapped) == 0 {
		return nil
	}
	var read []*resourcev1.DeviceClass
	for _, dc := range mapped {
		read = append(read, dc)
	}
	j := NewJudge(classesOnly(read), nil, "")
	names := mapKeys(mapped)
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
				n, _ := j.count(group{devices: devs, keys: keys}, Request{Class: mapped[name].Name})
				counts[name] = int64(n)
			}
			seen[k] = counts
		}
		out[node] = counts
	}
	return out
}

// classesOnly are the classes read, without NVIDIA's defaults.
func classesOnly(read []*resourcev1.DeviceClass) map[string]Class {
	out := map[string]Class{}
	for _, dc := range read {
		out[dc.Name] = classOf(dc)
	}
	return out
}
