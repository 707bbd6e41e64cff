package gpufit

import (
	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// replicatedKinds are the kinds whose pods the driver rollout's GPU-pod
// deletion removes and whose controllers make again, each pod on its own
// wherever the scheduler finds room: their replicas need room on the
// nodes the rollout leaves in.
var replicatedKinds = map[string]bool{
	"apps/Deployment":        true,
	"apps/StatefulSet":       true,
	"apps/ReplicaSet":        true,
	"/ReplicationController": true,
}

// replicaGroup is the replicated workloads that ask the same GPUs of the
// same nodes: their pods compete for the same room.
type replicaGroup struct {
	ws   []*inventory.Workload
	p    *sched.Placement
	reqs []gpures.Request
	most []gpures.Request
	pods int
}

// Replicated is workloads[].rollout_room (DRV032), on the first workload
// of each group of replicated workloads (replicatedKinds, not owned by
// another) that ask the same GPUs of the same nodes: their pods fit the
// admitted nodes' room, but not with the rollout's window out at worst
// (Window.worst: per scope, the nodes that hold the most of them). Only
// such a group gets an entry, and only with a window.
// From files alone: a cluster's pods are bound where they run, their room
// already taken, and plan --all's rollout places their replacements.
func (j *Judge) Replicated(ws []*inventory.Workload, owned func(*inventory.Workload) bool) map[*inventory.Workload]map[string]any {
	if j.window == nil {
		return nil
	}
	groups := map[fitKey]*replicaGroup{}
	var order []*replicaGroup
	for _, w := range ws {
		if w.Kind == nil || w.Replicas <= 0 || !replicatedKinds[gangKey(w)] || owned(w) {
			continue
		}
		reqs := gpures.Requests(&w.Template.Spec)
		if len(reqs) == 0 {
			continue
		}
		p := j.fleet.Place(&w.Template.Spec)
		most := j.containerMost(&w.Template.Spec, reqs)
		key := fitKey{p, requestKey(reqs) + requestKey(most)}
		g := groups[key]
		if g == nil {
			g = &replicaGroup{p: p, reqs: reqs, most: most}
			groups[key] = g
			order = append(order, g)
		}
		g.ws = append(g.ws, w)
		g.pods += int(w.Replicas)
	}
	out := map[*inventory.Workload]map[string]any{}
	for _, g := range order {
		if e := j.replicaRoom(g); e != nil {
			out[g.ws[0]] = e
		}
	}
	return out
}

// replicaRoom judges one group: each admitted node holds as many of its
// pods as its free room has of every resource they ask (their requests
// are the same), so no packing is needed; the window takes out, scope by
// scope, the nodes that hold the most.
func (j *Judge) replicaRoom(g *replicaGroup) map[string]any {
	free, _, known, _ := j.gangNodes([]member{{w: g.ws[0], p: g.p, reqs: g.reqs, most: g.most}})
	if !known {
		return nil
	}
	holds, admitted := 0, 0
	for _, s := range free {
		holds += podsOn(s, g.reqs) * s.count
		admitted += s.count
	}
	if holds < g.pods || admitted == 0 {
		return nil // they do not all fit even now: DRV015 or the scheduler's to say
	}
	out, left := j.window.worst(free, func(s slot) int64 { return int64(podsOn(s, g.reqs)) })
	held := 0
	for _, s := range left {
		held += podsOn(s, g.reqs) * s.count
	}
	if held >= g.pods {
		return nil
	}
	others := []any{}
	for _, w := range g.ws[1:] {
		others = append(others, docval.Ref(w.Ref.Kind, w.Ref.Namespace, w.Ref.Name))
	}
	return map[string]any{
		"pods":     g.pods,
		"requests": requestMap(g.reqs),
		"admitted": admitted,
		"holds":    holds,
		"out":      out,
		"held":     held,
		"others":   others,
		"field":    docval.Pointer(resourcesField(g.ws[0], g.reqs[0].Name)),
	}
}

// podsOn is how many pods asking reqs one node of slot s holds.
func podsOn(s slot, reqs []gpures.Request) int {
	if s.refuses != nil && s.refuses[0] {
		return 0
	}
	n := -1
	for _, r := range reqs {
		if r.Value <= 0 {
			continue
		}
		fit := int(s.free[r.Name] / r.Value)
		if n < 0 || fit < n {
			n = fit
		}
	}
	return max(n, 0)
}
