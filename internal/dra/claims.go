package dra

import (
	resourcev1 "k8s.io/api/resource/v1"
)

// Class is a DeviceClass: the selectors a device of it must pass.
type Class struct {
	Name      string
	Selectors []string
}

// defaultClasses are the DeviceClasses NVIDIA's DRA driver installs
// (dra-driver-nvidia-gpu deployments/helm/dra-driver-nvidia-gpu/templates/
// deviceclass-gpu.yaml, deviceclass-mig.yaml), taken when the inputs hold
// none of that name.
var defaultClasses = []Class{
	{Name: "gpu.nvidia.com", Selectors: []string{"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}},
	{Name: "mig.nvidia.com", Selectors: []string{"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"}},
}

// Classes are the DeviceClasses read, over NVIDIA's defaults.
func Classes(read []*resourcev1.DeviceClass) map[string]Class {
	out := map[string]Class{}
	for _, c := range defaultClasses {
		out[c.Name] = c
	}
	for _, dc := range read {
		out[dc.Name] = classOf(dc)
	}
	return out
}

// classOf is a DeviceClass's CEL selectors.
func classOf(dc *resourcev1.DeviceClass) Class {
	c := Class{Name: dc.Name}
	for _, s := range dc.Spec.Selectors {
		if s.CEL != nil {
			c.Selectors = append(c.Selectors, s.CEL.Expression)
		}
	}
	return c
}

// Request is one device request of a claim: its class, selectors and
// count, or alternatives of which one must be met (firstAvailable).
type Request struct {
	Name      string
	Class     string
	Selectors []string
	Count     int64 // devices wanted; at least one for All
	All       bool  // allocationMode All: every matching device, at least one
	Field     []any // where it is in the claim's manifest
	FirstOf   []Request
}

// Requests are a claim spec's device requests; base is the path of the
// spec in its manifest (spec for a ResourceClaim, spec.spec for a
// template).
func Requests(spec resourcev1.ResourceClaimSpec, base []any) []Request {
	var out []Request
	for i, r := range spec.Devices.Requests {
		field := append(append([]any{}, base...), "devices", "requests", i)
		req := Request{Name: r.Name, Field: field}
		if e := r.Exactly; e != nil {
			req.Class, req.Selectors = e.DeviceClassName, celOf(e.Selectors)
			req.Count, req.All = countOf(e.AllocationMode, e.Count)
		}
		for j, s := range r.FirstAvailable {
			sub := Request{Name: r.Name + "/" + s.Name, Class: s.DeviceClassName, Selectors: celOf(s.Selectors),
				Field: append(append([]any{}, field...), "firstAvailable", j)}
			sub.Count, sub.All = countOf(s.AllocationMode, s.Count)
			req.FirstOf = append(req.FirstOf, sub)
		}
		out = append(out, req)
	}
	return out
}

func celOf(sel []resourcev1.DeviceSelector) []string {
	var out []string
	for _, s := range sel {
		if s.CEL != nil {
			out = append(out, s.CEL.Expression)
		}
	}
	return out
}

// countOf is what a request asks: ExactCount (the default) of count (1
// when unset), or All.
func countOf(mode resourcev1.DeviceAllocationMode, count int64) (int64, bool) {
	if mode == resourcev1.DeviceAllocationModeAll {
		return 1, true
	}
	if count <= 0 {
		count = 1
	}
	return count, false
}
