package sched

// Domains counts the topology domains a placement's eligible nodes span.
type Domains struct {
	Count int // distinct values of the topology key among eligible nodes
	// Unlimited is set when an eligible node lacks the key: required
	// anti-affinity rejects a node only when it carries the topology key
	// (kubernetes pkg/scheduler/framework/plugins/interpodaffinity/filtering.go), so that node takes any number of pods.
	Unlimited bool
}

// Domains counts the distinct values of topologyKey (for example
// kubernetes.io/hostname, whose value is the node's label, not necessarily
// its name) among the nodes that pass every filter. With required
// anti-affinity between its replicas, a workload runs at most Count pods.
// The answer is cached with the placement, which is shared by every spec of
// the same constraints.
func (p *Placement) Domains(topologyKey string) Domains {
	if d, ok := p.domains[topologyKey]; ok {
		return d
	}
	var d Domains
	seen := map[string]bool{}
	for _, n := range p.EligibleNodes() {
		v, ok := n.Labels[topologyKey]
		if !ok {
			d.Unlimited = true
			break
		}
		seen[v] = true
	}
	d.Count = len(seen)
	if p.domains == nil {
		p.domains = map[string]Domains{}
	}
	p.domains[topologyKey] = d
	return d
}
