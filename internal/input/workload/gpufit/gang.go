package gpufit

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// gangKinds are the kinds whose pods do no work until all of them run, so
// that a part of them placed holds GPUs for nothing, and say why. A
// RayCluster's workers, a Deployment's replicas and a Kueue-admitted Job
// (Kueue reserves quota for all pods at once, but the scheduler places
// them one by one: kueue docs concepts/all_or_nothing.md) are not: each
// of their pods runs alone.
var gangKinds = map[string]string{
	"leaderworkerset.x-k8s.io/LeaderWorkerSet": "a LeaderWorkerSet's groups each run leader and workers together (tensor and pipeline parallel), and all its groups are its replicas",
	"jobset.x-k8s.io/JobSet":                   "a JobSet's Jobs run one distributed job",
	"kubeflow.org/PyTorchJob":                  "a PyTorchJob's ranks wait for each other (torch.distributed)",
	"trainer.kubeflow.org/TrainJob":            "a TrainJob's nodes wait for each other (torch.distributed)",
	"batch.volcano.sh/Job":                     "a Volcano Job is gang-scheduled: its minAvailable, by default every task's replicas, start together (volcano docs/design/job-api.md)",
}

// gangPodLabel is the label each gang kind's controller puts on its pods,
// naming the object: a running gang's own pods are not room taken from
// it (lws pkg/utils/pod: leaderworkerset.sigs.k8s.io/name; jobset
// api/jobset/v1alpha2: jobset.sigs.k8s.io/jobset-name, which a TrainJob's
// JobSet carries too; training-operator: training.kubeflow.org/job-name;
// volcano: volcano.sh/job-name).
var gangPodLabel = map[string]string{
	"leaderworkerset.x-k8s.io/LeaderWorkerSet": "leaderworkerset.sigs.k8s.io/name",
	"jobset.x-k8s.io/JobSet":                   "jobset.sigs.k8s.io/jobset-name",
	"kubeflow.org/PyTorchJob":                  "training.kubeflow.org/job-name",
	"trainer.kubeflow.org/TrainJob":            "jobset.sigs.k8s.io/jobset-name",
	"batch.volcano.sh/Job":                     "volcano.sh/job-name",
}

// gangKey is w's kind as gangKinds names it.
func gangKey(w *inventory.Workload) string { return w.Kind.Group + "/" + w.Kind.Name }

// member is one pod template of a gang: its pods and what each asks.
type member struct {
	w    *inventory.Workload
	p    *sched.Placement
	reqs []gpures.Request
	most []gpures.Request // the most one container asks, when the device plugin may refuse it (containerMost)
}

// Gangs are workloads[].gang, on the first template of each object of
// a gang kind whose pods ask for GPUs: whether all its pods fit at once
// on the nodes their constraints admit, packed by what each node offers
// less what the pods bound to it take.
func (j *Judge) Gangs(ws []*inventory.Workload) map[*inventory.Workload]map[string]any {
	byObject := map[object.Ref][]member{}
	others := map[object.Ref]int{} // pods of a gang that ask for no GPU
	var order []object.Ref
	for _, w := range ws {
		if w.Kind == nil || w.Replicas <= 0 {
			continue // a kind drvcheck does not know (generic), or no pod known
		}
		if _, ok := gangKinds[gangKey(w)]; !ok {
			continue
		}
		reqs := gpures.Requests(&w.Template.Spec)
		if len(reqs) == 0 {
			others[w.Ref] += int(w.Replicas) // a launcher without GPUs takes none
			continue
		}
		if _, seen := byObject[w.Ref]; !seen {
			order = append(order, w.Ref)
		}
		byObject[w.Ref] = append(byObject[w.Ref], member{w: w, p: j.fleet.Place(&w.Template.Spec), reqs: reqs,
			most: j.containerMost(&w.Template.Spec, reqs)})
	}
	out := map[*inventory.Workload]map[string]any{}
	for _, ref := range order {
		ms := byObject[ref]
		if j.eachFits(ms) { // a pod that fits nowhere alone is gpu_fit's to say
			out[ms[0].w] = j.gang(ms, others[ref])
		}
	}
	return out
}

// eachFits says whether one pod of every member fits some admitted node.
func (j *Judge) eachFits(ms []member) bool {
	for _, m := range ms {
		if !j.fitOf(m.p, m.reqs, nil).fits {
			return false
		}
	}
	return true
}

// gang judges one gang: its pods, best fit decreasing, into bins of nodes
// that offer the same.
func (j *Judge) gang(ms []member, others int) map[string]any {
	total := map[corev1.ResourceName]int64{}
	pods := 0
	for _, m := range ms {
		pods += int(m.w.Replicas)
	}
	free, refused, known, at := j.gangNodes(ms)
	j.gangWork += pods * len(free)
	if pods > maxGangPods || pods*len(free) > maxGangWork || j.gangWork > maxGangRunWork {
		// Packed one by one, a gang of millions of pods (a replicas a
		// repository writes) would take the run's memory, one of a
		// hundred thousand on hundreds of distinct nodes its time, and
		// hundreds of gangs of thousands of pods the time of the run.
		return map[string]any{"pods": pods, "must": 0, "placed": 0, "admitted": 0, "judged": false, "fits": true,
			"why": gangKinds[gangKey(ms[0].w)], "message": "", "field": docval.Pointer(resourcesField(ms[0].w, ms[0].reqs[0].Name))}
	}
	var wants []gangPod // one per pod
	for i, m := range ms {
		for range m.w.Replicas {
			wants = append(wants, gangPod{m.reqs, i})
		}
	}
	// The pods that must run at once: all, or a Volcano Job's minAvailable
	// less its pods that ask for no GPU, the smallest (the scheduler may
	// start any of them).
	must := min(gangMust(ms[0].w.GangMin, others, pods), pods)
	slices.SortStableFunc(wants, func(a, b gangPod) int { return int(sumOf(a.reqs) - sumOf(b.reqs)) })
	wants = wants[:must]
	slices.Reverse(wants) // packed largest first
	for _, want := range wants {
		for _, r := range want.reqs {
			total[r.Name] += r.Value
		}
	}
	admitted := countOf(free)
	placed := pack(free, wants)
	fits := placed == len(wants) || !known || admitted == 0
	g := map[string]any{
		"pods": pods, "must": must, "placed": placed, "admitted": admitted,
		"judged": known && admitted > 0, "fits": fits,
		"why": gangKinds[gangKey(ms[0].w)], "message": "", "field": docval.Pointer(resourcesField(ms[0].w, ms[0].reqs[0].Name)),
	}
	if !fits {
		g["message"] = fmt.Sprintf("%s ask for %s in all and must run at once, but the %d node(s) their node affinity and tolerations admit hold %d of them (%s free on them)%s",
			mustWords(must, pods), amounts(total), admitted, placed, amounts(only(sumAll(free), total)), refusedWords(refused))
	} else if g["judged"].(bool) {
		room := newRoom(j, ms, must, wants, free, at)
		if j.window != nil {
			out, left := j.window.worst(free, func(s slot) int64 { return sumFree(s.free) })
			room.worstOut, room.worstPlaced = out, pack(left, wants)
			g["rollout"] = map[string]any{"out": out, "placed": room.worstPlaced}
		}
		j.rooms = append(j.rooms, room)
	}
	return g
}

// gangMust is how many of a gang's pods that ask for GPUs must run at
// once: all, or minAvailable (volcano batch/v1alpha1 job.go: the job's
// pods gang-scheduled together) less the pods that ask for none.
func gangMust(minAvailable int32, others, pods int) int {
	if minAvailable <= 0 {
		return pods
	}
	return max(int(minAvailable)-others, 0)
}

func mustWords(must, pods int) string {
	if must == pods {
		return fmt.Sprintf("its %d GPU pods", pods)
	}
	return fmt.Sprintf("%d of its %d GPU pods (minAvailable)", must, pods)
}

// slot is nodes with the same room free.
type slot struct {
	free  map[corev1.ResourceName]int64
	count int
	// refuses are the members (by index) whose pods the nodes' device
	// plugin fails at admission; nil for none.
	refuses []bool
	// scopes counts the nodes by the rollout's scope that rolls them
	// (Window); nil without a window.
	scopes []int
}

// gangPod is one pod of a gang to place: what it asks, and its member.
type gangPod struct {
	reqs   []gpures.Request
	member int
}

func countOf(free []slot) int {
	n := 0
	for _, s := range free {
		n += s.count
	}
	return n
}

// maxGangPods is the largest gang packed, maxGangWork the most pods
// times distinct nodes (each pod is placed by a walk of the nodes, twice
// with a rollout's window, each two ways), and maxGangRunWork the same
// over every gang of a run: beyond, a gang is not judged.
const (
	maxGangPods    = 100000
	maxGangWork    = 10000000
	maxGangRunWork = 50000000 // every gang of the run together
)

// pack places wants, largest first, on the nodes of free, and says how
// many fit: best fit (the fullest node that holds
// the pod) and worst fit (the emptiest, as a spreading scheduler does),
// the better of the two. Packing is hard; either alone misses fleets the
// other fits (pods of 5, 4, 3, 3, 3 and 2 GPUs on two nodes of 10 fit
// worst first, not best first), and the scheduler scores GPUs neither
// way by default.
func pack(free []slot, wants []gangPod) int {
	placed := 0
	for _, worst := range []bool{false, true} {
		b := &bins{byKey: map[string]*bin{}, worst: worst}
		for _, s := range free {
			if s.count > 0 {
				b.add(s.free, s.refuses, s.count)
			}
		}
		n := 0
		for _, want := range wants {
			if !b.place(want) {
				break
			}
			n++
		}
		placed = max(placed, n)
		if placed == len(wants) {
			break
		}
	}
	return placed
}

// sumAll adds the nodes' free room up, by resource.
func sumAll(free []slot) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for _, s := range free {
		for name, v := range s.free {
			out[name] += v * int64(s.count)
		}
	}
	return out
}

// gangNodes are what is free on the nodes the gang's members admit, and
// whether every such node's offer is known. A node with pods bound to it
// is a slot of its own; the others are counted by class and offer, not
// walked, unless members disagree on where they go: then each node some
// member admits is a slot of its own, refusing the members that do not
// admit it (a pod of one template never lands where its constraints do
// not send it). refused counts the admitted nodes whose device plugin
// fails every member's pods at admission, with why (refusal.add): they
// hold none; a node that fails some members holds the others'
// (slot.refuses). at says which slot holds each node, for a rollout that
// takes nodes out (Room).
func (j *Judge) gangNodes(ms []member) (free []slot, refused refusal, known bool, at slotIndex) {
	known = true
	at = slotIndex{byGroup: map[groupKey]int{}, byNode: map[string]int{}}
	own := ownPods(ms[0].w)
	if disagree(ms) {
		free, refused, known = j.memberNodes(ms, own, at)
		return free, refused, known, at
	}
	bound := j.boundPods()
	for _, v := range ms[0].p.Classes {
		if !v.Admits() {
			continue
		}
		if !anyBound(v.Class.Nodes, bound) {
			for _, g := range j.offersOf(v.Class) {
				if !g.offer.Known() {
					known = false
					continue
				}
				refuses, all := refused.add(g.offer, ms, g.nodes)
				if all {
					continue
				}
				at.byGroup[groupKey{v.Class, g.offer.Key()}] = len(free)
				free = append(free, slot{free: g.offer.Resources, count: g.nodes, refuses: refuses, scopes: g.scopes})
			}
			continue
		}
		for _, n := range v.Class.Nodes {
			if s, ok := j.nodeSlot(n, ms, own, nil, &refused, &known); ok {
				at.byNode[n.Name] = len(free)
				free = append(free, s)
			}
		}
	}
	return free, refused, known, at
}

// disagree says whether the gang's members are placed by different
// constraints.
func disagree(ms []member) bool {
	for _, m := range ms[1:] {
		if m.p != ms[0].p {
			return true
		}
	}
	return false
}

// memberNodes are the slots of a gang whose members disagree on where
// they go: every node some member admits, one by one, in the order the
// members' classes list them.
func (j *Judge) memberNodes(ms []member, own func(*corev1.Pod) bool, at slotIndex) (free []slot, refused refusal, known bool) {
	known = true
	admits := make([]map[*corev1.Node]bool, len(ms))
	for i, m := range ms {
		admits[i] = admittedNodes(m.p)
	}
	seen := map[*corev1.Node]bool{}
	for _, m := range ms {
		for _, v := range m.p.Classes {
			if !v.Admits() {
				continue
			}
			for _, n := range v.Class.Nodes {
				if seen[n] {
					continue
				}
				seen[n] = true
				if s, ok := j.nodeSlot(n, ms, own, admits, &refused, &known); ok {
					at.byNode[n.Name] = len(free)
					free = append(free, s)
				}
			}
		}
	}
	return free, refused, known
}

// nodeSlot is n as a slot of its own: its offer less what bound pods
// take, refusing the members its device plugin fails and, when admits is
// given, those that do not admit it. ok is false when it holds none.
func (j *Judge) nodeSlot(n *corev1.Node, ms []member, own func(*corev1.Pod) bool, admits []map[*corev1.Node]bool, refused *refusal, known *bool) (slot, bool) {
	o := j.offerOf(n)
	if !o.Known() {
		*known = false
		return slot{}, false
	}
	refuses, all := refused.add(o, ms, 1)
	if all {
		return slot{}, false
	}
	for i := range admits {
		if admits[i][n] {
			continue
		}
		if refuses == nil {
			refuses = make([]bool, len(ms))
		}
		refuses[i] = true
	}
	if refuses != nil && !slices.Contains(refuses, false) {
		return slot{}, false
	}
	return slot{free: j.freeOn(n, o, own), count: 1, refuses: refuses, scopes: j.window.scopeCounts(n.Name)}, true
}

// refusal counts the nodes whose device plugin fails every member's pods
// at admission (failRequestsGreaterThanOne, sharing.go): like nodes the
// members' constraints do not admit, they hold none of the gang. A node
// that fails some members holds the others' pods (slot.refuses).
type refusal struct {
	nodes int
	why   string
}

// add says which members offer o refuses (nil for none), and whether it
// refuses them all, then counting its n nodes.
func (r *refusal) add(o gpures.Offer, ms []member, n int) (refuses []bool, all bool) {
	count := 0
	for i, m := range ms {
		name, refused := o.Refuses(m.most)
		if !refused {
			continue
		}
		if refuses == nil {
			refuses = make([]bool, len(ms))
		}
		refuses[i] = true
		count++
		if r.why == "" {
			r.why = fmt.Sprintf("a container asks for more than 1 %s, and %s", name, o.Why)
		}
	}
	if count == len(ms) {
		r.nodes += n
		return refuses, true
	}
	return refuses, false
}

// refusedWords is the message's note of the refused nodes, or "".
func refusedWords(r refusal) string {
	if r.nodes == 0 {
		return ""
	}
	return fmt.Sprintf("; %d more fail them at admission (UnexpectedAdmissionError: %s)", r.nodes, r.why)
}

func anyBound(nodes []*corev1.Node, bound map[string][]boundPod) bool {
	if len(bound) == 0 {
		return false
	}
	for _, n := range nodes {
		if len(bound[n.Name]) > 0 {
			return true
		}
	}
	return false
}

func sumOf(reqs []gpures.Request) int64 {
	var n int64
	for _, r := range reqs {
		n += r.Value
	}
	return n
}

// amounts writes resource counts as "32 nvidia.com/gpu".
func amounts(m map[corev1.ResourceName]int64) string {
	parts := make([]string, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[name], name))
	}
	return strings.Join(parts, ", ")
}

// only keeps of m the resources of want.
func only(m, want map[corev1.ResourceName]int64) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for name := range want {
		out[name] = m[name]
	}
	return out
}

// admittedNodes is the set of nodes a placement admits.
func admittedNodes(p *sched.Placement) map[*corev1.Node]bool {
	out := map[*corev1.Node]bool{}
	for _, v := range p.Classes {
		if v.Admits() {
			for _, n := range v.Class.Nodes {
				out[n] = true
			}
		}
	}
	return out
}

// freeOn is what n offers less what the pods bound to it (spec.nodeName,
// not finished) ask for, but the workload's own.
func (j *Judge) freeOn(n *corev1.Node, o gpures.Offer, own func(*corev1.Pod) bool) map[corev1.ResourceName]int64 {
	free := make(map[corev1.ResourceName]int64, len(o.Resources))
	for name, v := range o.Resources {
		free[name] = v
	}
	for _, b := range j.boundPods()[n.Name] {
		if own(b.pod) {
			continue
		}
		for _, r := range b.reqs {
			free[r.Name] -= r.Value
		}
	}
	return free
}

// ownPods tells w's own running pods, whose room is w's: a gang's by the
// label its controller sets (gangPodLabel), a replicated workload's by its
// template's labels, which its selector matches (a Deployment's pods carry
// them and a pod-template-hash).
func ownPods(w *inventory.Workload) func(*corev1.Pod) bool {
	if key, ok := gangPodLabel[gangKey(w)]; ok {
		return func(p *corev1.Pod) bool { return p.Namespace == w.Ref.Namespace && p.Labels[key] == w.Ref.Name }
	}
	if !replicatedKinds[gangKey(w)] || len(w.Template.Labels) == 0 {
		return func(*corev1.Pod) bool { return false }
	}
	sel := labels.SelectorFromSet(w.Template.Labels)
	return func(p *corev1.Pod) bool { return p.Namespace == w.Ref.Namespace && sel.Matches(labels.Set(p.Labels)) }
}

// boundPod is a pod bound to a node that asks for GPUs, and what it asks.
type boundPod struct {
	pod  *corev1.Pod
	reqs []gpures.Request
}

// boundPods are the pods bound to each node that still hold GPUs of it,
// read once, their requests with them: every gang on the node asks.
func (j *Judge) boundPods() map[string][]boundPod {
	if j.bound != nil {
		return j.bound
	}
	j.bound = map[string][]boundPod{}
	for _, p := range j.pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if reqs := gpures.Requests(&p.Spec); len(reqs) > 0 {
			j.bound[p.Spec.NodeName] = append(j.bound[p.Spec.NodeName], boundPod{p, reqs})
		}
	}
	return j.bound
}

// bins are nodes by what is free on them: count nodes of each.
type bins struct {
	byKey map[string]*bin
	list  []*bin
	worst bool // worst fit: the emptiest node first
}

type bin struct {
	free    map[corev1.ResourceName]int64
	count   int
	refuses []bool // slot.refuses
}

func (b *bins) add(free map[corev1.ResourceName]int64, refuses []bool, count int) {
	k := roomKey(free, refuses)
	if x, ok := b.byKey[k]; ok {
		x.count += count
		return
	}
	x := &bin{free: free, count: count, refuses: refuses}
	b.byKey[k] = x
	b.list = append(b.list, x)
}

// place puts one pod where it fits with the least room left (best fit),
// or the most (worst fit), and says whether it fit.
func (b *bins) place(want gangPod) bool {
	var best *bin
	for _, x := range b.list {
		if x.count == 0 || x.refuses != nil && x.refuses[want.member] || !holds(x.free, want.reqs) {
			continue
		}
		if best == nil || b.better(sumFree(x.free), sumFree(best.free)) {
			best = x
		}
	}
	if best == nil {
		return false
	}
	best.count--
	left := make(map[corev1.ResourceName]int64, len(best.free))
	for name, v := range best.free {
		left[name] = v
	}
	for _, r := range want.reqs {
		left[r.Name] -= r.Value
	}
	b.add(left, best.refuses, 1)
	return true
}

// better says whether a node of free room x is a better place than one
// of than: less room for best fit, more for worst fit.
func (b *bins) better(x, than int64) bool {
	if b.worst {
		return x > than
	}
	return x < than
}

// roomKey tells nodes apart by what is free on them and the members
// their device plugin refuses.
func roomKey(free map[corev1.ResourceName]int64, refuses []bool) string {
	return gpures.Offer{Resources: free}.Key() + fmt.Sprint(refuses)
}

func holds(free map[corev1.ResourceName]int64, want []gpures.Request) bool {
	ok, _ := gpures.Offer{Resources: free}.Holds(want)
	return ok
}

func sumFree(m map[corev1.ResourceName]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
