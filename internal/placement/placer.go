package placement

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/placement/layered"
	"github.com/drvcheck/drvcheck/internal/placement/nodeset"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Reason the scheduler gives for a node that required pod anti-affinity
// rules out (the scheduler's InterPodAffinity filter).
const ReasonAntiAffinity = "node(s) didn't match pod anti-affinity rules"

// countKey counts the pods of a group in one topology domain: the nodes
// whose label key has value.
type countKey struct {
	group      *group
	key, value string
}

// addCounts adds d to the domain counts of p on node.
func (m *Model) addCounts(counts *layered.Map[countKey, int], p *drain.Pod, node string, d int) {
	n, g := m.Node(node), groupOf(p)
	if n == nil || g == nil || !g.counted {
		return // no rule reads where this pod is
	}
	for _, k := range m.topoKeys {
		if v, ok := n.Labels[k]; ok {
			ck := countKey{g, k, v}
			counts.Set(ck, counts.At(ck)+d)
		}
	}
}

// place lands every run of replicas on nodes, in model order, replica by
// replica: a pod with spec.nodeName on that node (the scheduler is
// bypassed, the kubelet still admits by resources), any other on the next
// node, in name order, that passes the scheduler's filters (taints, node
// affinity, via internal/sched), its resource fit (pods and GPUs, fits)
// and its required pod anti-affinity. Each set of scheduling constraints
// keeps its own cursor, so the replicas of a workload spread over the
// nodes it may use, one per node before any node gets a second. A node
// cordoned in the files still holds the pods it ran before its cordon (a
// cordon evicts nothing), so the first placement ignores cordons;
// replacements later honour them.
func (m *Model) place(where func(object.Ref) string) error {
	s := m.placer()
	s.delta, s.usedDelta = layered.Map[countKey, int]{}, use{}
	runs := m.Pods
	placed := make([][]*drain.Pod, len(runs))
	total := 0
	for _, pinned := range []bool{true, false} {
		for i, run := range runs {
			if (run.Spec.NodeName != "") != pinned {
				continue
			}
			placed[i] = s.placeRun(run, maxModelPods-total)
			if placed[i] == nil {
				return tooManyPods(where(run.Workload), fmt.Sprintf("%d replicas", run.Count))
			}
			total += len(placed[i])
		}
	}
	m.Pods = slices.Concat(placed...)
	m.counts, m.used = s.delta, s.usedDelta // the pods as placed
	return nil
}

// placer is the Sim that places the pods of the files: it ignores
// cordons, and words no reason (no answer reads one; WhyUnplaced words
// it on demand, where a failure worded per replica set was a third of
// the model's time on a full fleet).
func (m *Model) placer() *Sim {
	s := m.NewSim(drain.Flags{})
	s.Quiet = true
	if slices.ContainsFunc(m.Nodes, func(n *corev1.Node) bool { return n.Spec.Unschedulable }) {
		s.fleet = sched.NewFleet(sched.Uncordoned(m.Nodes), m.keys)
	}
	return s
}

// WhyUnplaced words why p, a pod of the files on no node, fits none: the
// scheduler's word on its latest attempt, once every pod of the files
// has landed (as the scheduler retries a Pending pod when the cluster
// changes). Nothing leaves a node while the files are placed, so a pod
// that fitted nowhere then fits nowhere at the end either; but for a pod
// with spread constraints (a pod landing later may raise the least count
// of a domain), whose reason place worded when it failed.
func (m *Model) WhyUnplaced(p *drain.Pod) string {
	if !m.Unplaced[p] {
		return ""
	}
	if why, ok := m.unplacedWhy[p]; ok {
		return why
	}
	s := m.placer()
	s.Quiet = false
	_, why := s.land(p.Replicas(0, 1))
	return why
}

// maxModelPods bounds the pods placed from files. The kubelet's default
// of 110 pods on each of the target fleet's 5,000 nodes is 550,000; only
// nodes declaring far more allocatable pods than Kubernetes supports
// reach it. A variable, for its test.
var maxModelPods = 600_000

func tooManyPods(where, what string) error {
	return fmt.Errorf("%s: %s: the model would hold more than the %d pods drvcheck models (4 times the 150,000 Kubernetes supports in one cluster)",
		where, what, maxModelPods)
}

// placeRun lands run's replicas one by one until one fits no node. Nothing
// leaves a node while the files are placed, so no later replica would fit
// either: the rest stay one entry on no node, however many they are. It
// gives nil once limit entries would not hold them.
func (s *Sim) placeRun(run *drain.Pod, limit int) []*drain.Pod {
	out := make([]*drain.Pod, 0, min(int(run.Count), 64, limit))
	for i := int32(0); i < run.Count; i++ {
		if len(out) == limit {
			return nil
		}
		p := run.Replicas(i, 1)
		// A spread constraint's failure may end as later pods land: its
		// reason is worded now, the others' when asked (WhyUnplaced).
		s.Quiet = !spreads(run)
		node, why := s.land(p)
		s.Quiet = true
		if node == "" {
			rest := run.Replicas(i, run.Count-i)
			s.m.Unplaced[rest] = true
			if why != "" {
				s.m.unplacedWhy[rest] = why
			}
			return append(out, rest)
		}
		p.Node = node
		s.m.addCounts(&s.delta, p, node, 1)
		s.m.addOn(&s.usedDelta, node, p, 1)
		out = append(out, p)
	}
	return out
}

// land is the node a new pod of the files lands on: its spec.nodeName
// when that node's kubelet admits it, else the scheduler's pick.
func (s *Sim) land(p *drain.Pod) (node, why string) {
	name := p.Spec.NodeName
	if name == "" {
		return s.find(p)
	}
	n := s.m.Node(name)
	if n == nil {
		return "", fmt.Sprintf("spec.nodeName %s is not a known node", name)
	}
	if ok, why := s.fits(p, n, s.m.number(name), nil); !ok {
		return "", fmt.Sprintf("the kubelet of %s refuses it: %s", name, why)
	}
	return name, ""
}

// eligible lists the nodes whose class passes the filters, by name; cached
// per placement, which the fleet itself caches per set of constraints.
func (m *Model) eligible(pl *sched.Placement) []*corev1.Node {
	if m.eligibleCache == nil {
		m.eligibleCache = map[*sched.Placement][]*corev1.Node{}
	}
	if e, ok := m.eligibleCache[pl]; ok {
		return e
	}
	e := pl.EligibleByName()
	m.eligibleCache[pl] = e
	return e
}

// placement is fleet.Place(spec), remembered per spec: replicas share
// their template's spec, and Place would otherwise key its own cache anew
// for every pod.
func (m *Model) placement(fleet *sched.Fleet, spec *corev1.PodSpec) *sched.Placement {
	k := placementKey{fleet, spec}
	if pl, ok := m.placements[k]; ok {
		return pl
	}
	if m.placements == nil {
		m.placements = map[placementKey]*sched.Placement{}
	}
	pl := fleet.Place(spec)
	m.placements[k] = pl
	return pl
}

type placementKey struct {
	fleet *sched.Fleet
	spec  *corev1.PodSpec
}

// find returns the node a new pod like p lands on now, or "" and the
// scheduler-style reason why none fits.
func (s *Sim) find(p *drain.Pod) (node, why string) {
	return s.search(p, false, s.Quiet)
}

// search walks the nodes p's constraints admit, from the placement's
// cursor. A dry run takes p off its node for the test (it is about to be
// evicted) and leaves the cursor where it is. A quiet search words no
// reason when it finds nothing.
func (s *Sim) search(p *drain.Pod, dry, quiet bool) (node, why string) {
	var self *corev1.Node
	if dry {
		self = s.m.Node(s.NodeOf(p))
	}
	pl := s.m.placement(s.fleet, p.Spec)
	nodes := s.m.eligible(pl)
	g := groupOf(p)
	tolerates := g.toleratesCordon
	rules := s.m.rulesFor(g)
	key := s.m.searchKey(pl, p, rules, tolerates, self)
	// A spread constraint's failure may end when a pod lands elsewhere
	// (the global minimum rises): it is never remembered.
	floors := s.spreadFloors(p, pl, self)
	if f, ok := s.failed(key); ok && floors == nil {
		if !quiet && (!f.worded || f.at.cordons != s.room.cordons) {
			f.why, f.worded = s.whyNot(p, pl, nodes, tolerates, rules), true
			s.remember(key, f)
		}
		return "", f.why
	}
	start, found := s.cursor[pl], -1
	global := s.m.globalOf(pl, nodes)
	try := func(pos int) bool {
		n, at := nodes[pos], global[pos]
		if (!tolerates && s.cordonSet.Has(int(at))) || s.conflicts(rules, n, g, self) {
			return false
		}
		if floors != nil && s.skewed(p, n, floors, self) != "" {
			return false
		}
		if fits, _ := s.fits(p, n, at, self); !fits {
			if self != n {
				s.noteFull(p, n.Name)
			}
			return false
		}
		found = pos
		return true
	}
	s.walk(p, pl, nodes, start, tolerates, self, try)
	if found >= 0 {
		if !dry {
			s.setCursor(pl, (found+1)%len(nodes))
		}
		return nodes[found].Name, ""
	}
	f := failure{worded: !quiet}
	if f.worded {
		f.why = s.whyNot(p, pl, nodes, tolerates, rules)
	}
	if floors == nil {
		s.remember(key, f)
	}
	return "", f.why
}

// conflicts reports whether a rule keeps the pod off n: a pod of the rule's
// group sits in n's domain. A node without the topology key passes. With
// self (the node of the pod being tested), that pod does not count.
func (s *Sim) conflicts(rules []rule, n *corev1.Node, g *group, self *corev1.Node) bool {
	for _, r := range rules {
		v, ok := n.Labels[r.key]
		if !ok {
			continue
		}
		c := s.count(countKey{r.other, r.key, v})
		if self != nil && r.other == g && self.Labels[r.key] == v {
			c--
		}
		if c > 0 {
			return true
		}
	}
	return false
}

func (s *Sim) count(k countKey) int { return s.m.counts.At(k) + s.delta.At(k) }

// whyNot words a failed placement like the scheduler's FitError:
// "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't
// match pod anti-affinity rules." Each node counts under the first filter
// it fails, in the scheduler's order (pkg/scheduler/apis/config/v1/
// default_plugins.go; the framework stops at a node's first failure):
// NodeUnschedulable; TaintToleration and NodeAffinity (pl.Reasons);
// NodeResourcesFit; PodTopologySpread; InterPodAffinity.
func (s *Sim) whyNot(p *drain.Pod, pl *sched.Placement, nodes []*corev1.Node, tolerates bool, rules []rule) string {
	var reasons tally
	for r, n := range pl.Reasons {
		reasons.add(r, n)
	}
	floors := s.spreadFloors(p, pl, nil)
	test := func(i int, n *corev1.Node, r *roomy) {
		if why := s.unfit(p, n, r, i); why != "" {
			reasons.add(why, 1)
			return
		}
		switch {
		case floors != nil && s.skewed(p, n, floors, nil) != "":
			reasons.add(s.skewed(p, n, floors, nil), 1)
		case s.conflicts(rules, n, nil, nil):
			reasons.add(ReasonAntiAffinity, 1)
		}
	}
	if r := s.m.roomFor(pl, p, nodes); r != nil {
		s.tallyIndexed(&reasons, r, nodes, tolerates, floors != nil || len(rules) > 0, test)
	} else {
		for i, n := range nodes {
			if !tolerates && s.Cordoned(n.Name) {
				reasons.add(sched.ReasonUnschedulable, 1)
				continue
			}
			test(i, n, nil)
		}
	}
	parts := make([]string, len(reasons.names))
	for i, r := range reasons.names {
		parts[i] = fmt.Sprintf("%d %s", reasons.counts[i], r)
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", pl.Total, strings.Join(parts, ", "))
}

// tallyIndexed is whyNot's count over r's nodes with the index: a rollout
// words why replacements stay Pending after every cordon, and a count
// that tested every node each time grew with the square of the fleet.
// Cordoned nodes count at once, and the nodes no pod moved on or off keep
// the reason they had as read, counted per reason 64 at a time; the others
// are tested: those changed, the nodes whose reason is past the index, and
// when a rule or spread may refuse a node with room (refusable), those
// with room as read.
func (s *Sim) tallyIndexed(reasons *tally, r *roomy, nodes []*corev1.Node, tolerates, refusable bool, test func(int, *corev1.Node, *roomy)) {
	var cordons nodeset.Set
	if !tolerates {
		cordons = s.cordonSet
		if n := r.eligible.CountIn(cordons); n > 0 {
			reasons.add(sched.ReasonUnschedulable, n)
		}
	}
	for k, set := range r.byWhy {
		if n := set.Count(cordons, s.changed); n > 0 {
			reasons.add(s.m.reasons.word(uint8(k+1)), n)
		}
	}
	tested := s.changed.Into(s.scratch, r.eligible, cordons)
	tested.AddAll(r.untold, cordons)
	if refusable {
		tested.AddAll(r.set, cordons)
	}
	s.scratch = tested
	all := tested.Members(0, r.order)
	for i, ok := all.Next(); ok; i, ok = all.Next() {
		test(i, nodes[i], r)
	}
}

// tally counts nodes per reason. A search words a reason over every
// eligible node, with a handful of reasons among them: a list beats a
// map's hashing of each node's reason.
type tally struct {
	names  []string
	counts []int
}

func (t *tally) add(reason string, n int) {
	for i, r := range t.names {
		if r == reason {
			t.counts[i] += n
			return
		}
	}
	t.names, t.counts = append(t.names, reason), append(t.counts, n)
}

// unfit is why n, at position i of r's nodes, has no room for p now (""
// when it has): the reason as read for a node no pod moved on or off, or
// as last worded since the node's last change (its stamp), else fits'.
// A rollout words why replacements stay Pending after every cordon, and
// testing every node that had changed, each time, was a sixth of its
// time on a full fleet.
func (s *Sim) unfit(p *drain.Pod, n *corev1.Node, r *roomy, i int) string {
	if r == nil {
		_, why := s.fits(p, n, s.m.number(n.Name), nil)
		return why
	}
	o := r.order[i]
	if !s.changed.Has(int(o)) && r.why[i] != 0 {
		return s.m.reasons.word(r.why[i])
	}
	if r.seen == nil {
		r.seen = make([]seenWhy, len(r.why))
	}
	stamp := s.stamp.At(int(o))
	if seen := r.seen[i]; seen.stamp != 0 && seen.stamp == stamp {
		return s.m.reasons.word(seen.why)
	}
	_, why := s.fits(p, n, o, nil)
	// 0 is also what an index past its 255 reasons gives: not kept.
	if k := s.m.reasons.index(why); stamp != 0 && (k != 0 || why == "") {
		r.seen[i] = seenWhy{stamp: stamp, why: k}
	}
	return why
}
