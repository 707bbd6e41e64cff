package gpufit

import (
	"slices"

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
// another) that ask the same GPUs of the same nodes: whether all their
// pods fit the admitted nodes' room, and, for k = 1, 2, … (at most 16),
// how many fit with the k nodes that hold the most of them out, as a
// driver rollout that takes k nodes out at once leaves them at worst.
// Only a group that fits the fleet and not some window gets an entry.
// From files alone: a cluster's pods are bound where they run, their room
// already taken, and plan --all's rollout places their replacements.
func (j *Judge) Replicated(ws []*inventory.Workload, owned func(*inventory.Workload) bool) map[*inventory.Workload]map[string]any {
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
// are the same), so no packing is needed.
func (j *Judge) replicaRoom(g *replicaGroup) map[string]any {
	free, _, known, _ := j.gangNodes([]member{{w: g.ws[0], p: g.p, reqs: g.reqs, most: g.most}})
	if !known {
		return nil
	}
	var each []int // pods each admitted node holds, one entry per node
	total := 0
	for _, s := range free {
		n := podsOn(s, g.reqs)
		for range s.count {
			each = append(each, n)
		}
		total += n * s.count
		if len(each) > maxGangPods {
			return nil // a fleet this large is plan --all's to place
		}
	}
	if total < g.pods || len(each) == 0 {
		return nil // they do not all fit even now: DRV015 or the scheduler's to say
	}
	slices.SortFunc(each, func(a, b int) int { return b - a })
	var window []any
	left, broken := total, false
	for k := 1; k <= min(len(each), maxWindow); k++ {
		left -= each[k-1]
		window = append(window, min(left, g.pods))
		broken = broken || left < g.pods
	}
	if !broken {
		return nil
	}
	others := []any{}
	for _, w := range g.ws[1:] {
		others = append(others, docval.Ref(w.Ref.Kind, w.Ref.Namespace, w.Ref.Name))
	}
	return map[string]any{
		"pods":     g.pods,
		"requests": requestMap(g.reqs),
		"admitted": len(each),
		"holds":    total,
		"window":   window,
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
