package gpufit

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Fit is workloads[].gpu_fit (DRV015): whether one pod of w, with its
// GPU requests, fits an empty node its node affinity and taints admit
// (cordoned ones too: a cordon is temporary), as the scheduler's resource
// fit counts it against what each node offers (gpures). Nil when w asks
// for no GPU. Nodes are judged once per class and distinct offer, and
// workloads of the same constraints and requests share the answer.
func (j *Judge) Fit(w *inventory.Workload, p *sched.Placement) map[string]any {
	reqs := gpures.Requests(&w.Template.Spec)
	if len(reqs) == 0 {
		return nil
	}
	most := j.containerMost(&w.Template.Spec, reqs)
	key := fitKey{p, requestKey(reqs) + requestKey(most)}
	if e, ok := j.fitEntries[key]; ok {
		return e
	}
	fit := j.fitOf(p, reqs, most)
	if fit.fits {
		// Most workloads fit, or cannot be judged: one entry of three keys
		// for all that ask the same of the same nodes (the rules'
		// converter makes one value of a map it meets twice).
		e := map[string]any{"requests": requestMap(reqs), "fits": true, "judged": fit.judged}
		j.fitEntries[key] = e
		return e
	}
	out := map[string]any{
		"requests": requestMap(reqs),
		"judged":   fit.judged,
		"fits":     fit.fits,
		"admitted": fit.admitted,
		"message":  fit.message,
		"fix":      fit.fix,
		"field":    "",
	}
	if fit.lacking != "" {
		out["field"] = docval.Pointer(resourcesField(w, fit.lacking))
	}
	return out
}

// fitOf judges a placement and requests once.
func (j *Judge) fitOf(p *sched.Placement, reqs, most []gpures.Request) fit {
	key := fitKey{p, requestKey(reqs) + requestKey(most)}
	f, ok := j.fits[key]
	if !ok {
		f = j.judgeFit(p, reqs, most)
		j.fits[key] = f
	}
	return f
}

// containerMost is, when the inputs' device plugin fails requests of more
// than one shared device per container and the pod asks more than one of
// a resource, the most one container asks of each: the plugin's Allocate
// judges each container alone. Nil otherwise, as for most pods.
func (j *Judge) containerMost(spec *corev1.PodSpec, reqs []gpures.Request) []gpures.Request {
	if j.configs == nil || j.configs.Sharing == nil || !slices.ContainsFunc(reqs, func(r gpures.Request) bool { return r.Value > 1 }) {
		return nil
	}
	most := gpures.ContainerMost(spec)
	out := make([]gpures.Request, 0, len(most))
	for _, name := range slices.Sorted(maps.Keys(most)) {
		out = append(out, gpures.Request{Name: name, Value: most[name]})
	}
	return out
}

type fitKey struct {
	p    *sched.Placement
	reqs string
}

// fit is the answer for one placement and one set of requests.
type fit struct {
	judged, fits bool
	refused      bool // some admitted node has room but fails the pod at admission
	admitted     int
	message, fix string
	lacking      corev1.ResourceName // the first request no admitted node holds
}

// judgeFit counts, class by class and offer by offer, the nodes that can
// hold a pod of reqs, and words the answer as the scheduler's FitError
// does, with what the admitted nodes have.
func (j *Judge) judgeFit(p *sched.Placement, reqs, most []gpures.Request) fit {
	var f fit
	reasons := map[string]int{}
	have := map[corev1.ResourceName]int64{}    // the most an admitted node has of a lacking resource
	offered := map[corev1.ResourceName]int64{} // the most an admitted node has of any resource
	products := map[string]bool{}              // the GPU models of the admitted nodes
	unknown := 0
	for _, v := range p.Classes {
		if !v.Admits() {
			reasons[v.Reason] += len(v.Class.Nodes)
			continue
		}
		f.admitted += len(v.Class.Nodes)
		for _, g := range j.offersOf(v.Class) {
			if !g.offer.Known() {
				unknown += g.nodes
				continue
			}
			for name, n := range g.offer.Resources {
				offered[name] = max(offered[name], n)
			}
			if g.offer.Product != "" {
				products[g.offer.Product] = true
			}
			ok, lacking := g.offer.Holds(reqs)
			if ok {
				if name, refused := g.offer.Refuses(most); refused {
					// The scheduler places the pod; the kubelet then fails it.
					reasons[admissionReason(name, g.offer.Why)] += g.nodes
					f.refused = true
					continue
				}
				f.fits = true
				continue
			}
			reasons["Insufficient "+string(lacking)] += g.nodes
			have[lacking] = max(have[lacking], g.offer.Resources[lacking])
			if f.lacking == "" {
				f.lacking = lacking
			}
		}
	}
	f.judged = f.fits || (f.admitted > 0 && unknown == 0)
	if f.fits || !f.judged {
		f.fits = true // nothing to say: it fits, or no node's offer is known
		return f
	}
	f.message = fitMessage(p.Total, reasons, have)
	f.fix = j.fitFix(reqs, offered, products, p)
	if f.refused && f.lacking == "" {
		f.fix = "ask for one device per container (a shared device is access to a GPU, not a share of it: more than one buys no more), or admit nodes that do not share their GPUs"
	}
	return f
}

// admissionReason is the kubelet's answer to a pod the device plugin
// refuses (k8s-device-plugin v0.20.0 README: "UnexpectedAdmissionError
// ... maximum request size for shared resources is 1"), in the place of
// the scheduler's reason of a node.
func admissionReason(name corev1.ResourceName, why string) string {
	return fmt.Sprintf("node(s) fail the pod at admission (UnexpectedAdmissionError: a container asks for more than 1 %s, and %s)", name, why)
}

// fitMessage reads like the scheduler's: "0/12 nodes are available: 8
// Insufficient nvidia.com/gpu (have 4), 4 node(s) didn't match Pod's node
// affinity/selector", each node under the first filter it fails.
func fitMessage(total int, reasons map[string]int, have map[corev1.ResourceName]int64) string {
	parts := make([]string, 0, len(reasons))
	for r, n := range reasons {
		part := fmt.Sprintf("%d %s", n, r)
		if name, ok := strings.CutPrefix(r, "Insufficient "); ok {
			part += fmt.Sprintf(" (have %d)", have[corev1.ResourceName(name)])
		}
		parts = append(parts, part)
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s", total, strings.Join(parts, ", "))
}

// fitFix is the nearest change that lets the pod run: the name under
// which the admitted nodes offer what it asks (time-slicing renames
// nvidia.com/gpu; MIG divides it into profiles), fewer devices per pod,
// or the nodes outside its constraints that would hold it.
func (j *Judge) fitFix(reqs []gpures.Request, offered map[corev1.ResourceName]int64, products map[string]bool, p *sched.Placement) string {
	for _, r := range reqs {
		if offered[r.Name] >= r.Value {
			continue
		}
		if alt, n := sameDevice(r.Name, offered); alt != "" && n >= r.Value {
			return fmt.Sprintf("ask for %s: %d (the admitted nodes offer their GPUs under that name, %d per node; %s)", alt, r.Value, n, renameWhy(r.Name, alt))
		}
		if profiles := migProfiles(offered); len(profiles) > 0 && isMIGOrGPU(r.Name) {
			how := repartition(r.Name, products, j.configs.MIGConfigs())
			sep := ", or "
			if strings.HasPrefix(how, "no admitted") {
				sep = "; "
			}
			return fmt.Sprintf("ask for one of the MIG devices the admitted nodes offer (%s)%s%s", strings.Join(profiles, ", "), sep, how)
		}
		if strings.HasPrefix(string(r.Name), "nvidia.com/mig-") && len(products) > 0 {
			return repartition(r.Name, products, j.configs.MIGConfigs())
		}
		if n := offered[r.Name]; n > 0 {
			return fmt.Sprintf("ask for at most %d %s per pod (the most an admitted node has), or admit nodes with %d%s", n, r.Name, r.Value, j.elsewhere(r, p))
		}
		return fmt.Sprintf("no admitted node advertises %s: admit nodes that do%s", r.Name, j.elsewhere(r, p))
	}
	return ""
}

// repartition says which nvidia.com/mig.config gives the admitted nodes'
// GPUs what name asks (all-disabled for whole GPUs), or that their model
// has no such profile (gpures.MIGConfigFor). With a custom mig-parted
// config only its configs can be applied (customRepartition).
func repartition(name corev1.ResourceName, products map[string]bool, custom *gpures.MIGConfigs) string {
	if custom != nil {
		return customRepartition(name, products, custom)
	}
	if name == "nvidia.com/gpu" {
		return "set nvidia.com/mig.config=all-disabled on the nodes to offer whole GPUs"
	}
	profile := strings.TrimPrefix(string(name), "nvidia.com/mig-")
	var ways, lacks []string
	for _, product := range slices.Sorted(maps.Keys(products)) {
		config, n, model, has := gpures.MIGConfigFor(product, profile)
		switch {
		case config != "":
			ways = append(ways, fmt.Sprintf("nvidia.com/mig.config=%s gives each %s GPU %d", config, product, n))
		case model != "":
			lacks = append(lacks, fmt.Sprintf("%s has no %s profile (it has %s)", product, profile, strings.Join(has, ", ")))
		}
	}
	switch {
	case len(ways) > 0:
		return "repartition them: " + strings.Join(ways, "; ")
	case len(lacks) > 0:
		return "no admitted node's GPU can offer it: " + strings.Join(lacks, "; ")
	}
	return "set nvidia.com/mig.config on the nodes to a layout with " + profile
}

// customRepartition names the custom config that gives the products'
// GPUs what name asks, or says that none of its configs does: the
// operator's own all-<profile> configs are not mounted beside it.
func customRepartition(name corev1.ResourceName, products map[string]bool, custom *gpures.MIGConfigs) string {
	profile, isMIG := strings.CutPrefix(string(name), "nvidia.com/mig-")
	what := profile
	if !isMIG {
		what = "whole GPUs"
	}
	if !custom.Known() {
		return fmt.Sprintf("set nvidia.com/mig.config on the nodes to a config of the MIG manager's %s that gives %s (the inputs do not hold it: give it to have it read)", custom.Source(), what)
	}
	var ways []string
	for _, product := range slices.Sorted(maps.Keys(products)) {
		if !isMIG {
			if config := custom.Disabling(product); config != "" {
				ways = append(ways, fmt.Sprintf("nvidia.com/mig.config=%s gives %s GPUs whole", config, product))
			}
			continue
		}
		switch config, n, gpus := custom.ConfigFor(product, profile); {
		case config == "":
		case gpus == 1:
			ways = append(ways, fmt.Sprintf("nvidia.com/mig.config=%s gives each %s GPU %d", config, product, n))
		default:
			ways = append(ways, fmt.Sprintf("nvidia.com/mig.config=%s gives a node of %d %s GPUs %d", config, gpus, product, n))
		}
	}
	if len(ways) > 0 {
		return "repartition them: " + strings.Join(ways, "; ") + " (" + custom.Source() + ")"
	}
	return fmt.Sprintf("no config of the MIG manager's %s gives the admitted nodes' GPUs %s: add one, as the operator's default configs are not used beside it", custom.Source(), what)
}

// elsewhere names how many nodes outside the pod's constraints would hold
// r, when some would.
func (j *Judge) elsewhere(r gpures.Request, p *sched.Placement) string {
	n := 0
	for _, v := range p.Classes {
		if v.Admits() {
			continue
		}
		for _, g := range j.offersOf(v.Class) {
			if g.offer.Resources[r.Name] >= r.Value {
				n += g.nodes
			}
		}
	}
	if n == 0 {
		return " (no known node has)"
	}
	return fmt.Sprintf(" (%d known node(s) do, outside its node affinity and tolerations)", n)
}

// sameDevice is the other name of the same device the nodes offer:
// nvidia.com/gpu.shared for nvidia.com/gpu (renameByDefault), or the
// reverse.
func sameDevice(name corev1.ResourceName, offered map[corev1.ResourceName]int64) (corev1.ResourceName, int64) {
	alt := corev1.ResourceName(strings.TrimSuffix(string(name), ".shared"))
	if alt == name {
		alt = name + ".shared"
	}
	if n, ok := offered[alt]; ok && n > 0 {
		return alt, n
	}
	return "", 0
}

func renameWhy(asked, offered corev1.ResourceName) string {
	if strings.HasSuffix(string(offered), ".shared") {
		return "the device plugin's time-slicing or MPS with renameByDefault renames " + string(asked)
	}
	return "the device plugin shares them without renameByDefault"
}

// migProfiles lists the MIG resources offered, by name.
func migProfiles(offered map[corev1.ResourceName]int64) []string {
	var out []string
	for name, n := range offered {
		if strings.HasPrefix(string(name), "nvidia.com/mig-") && n > 0 {
			out = append(out, string(name))
		}
	}
	sort.Strings(out)
	return out
}

func isMIGOrGPU(name corev1.ResourceName) bool {
	return name == "nvidia.com/gpu" || strings.HasPrefix(string(name), "nvidia.com/mig-")
}

// offerGroup is nodes of one class with the same offer.
type offerGroup struct {
	offer  gpures.Offer
	nodes  int
	scopes []int // the nodes by the rollout's scope (Window.scopeCounts)
}

// offersOf groups a class's nodes by what they offer, once per class.
func (j *Judge) offersOf(cl *sched.Class) []offerGroup {
	if gs, ok := j.offers[cl]; ok {
		return gs
	}
	var out []offerGroup
	index := map[string]int{}
	for _, n := range cl.Nodes {
		o := j.offerOf(n)
		k := o.Key()
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, offerGroup{offer: o, scopes: j.window.scopeCounts()})
		}
		out[i].nodes++
		if s, ok := j.window.scopeOfNode(n.Name); ok {
			out[i].scopes[s]++
		}
	}
	j.offers[cl] = out
	return out
}

// offerOf reads a node's offer once: split classes share nodes.
func (j *Judge) offerOf(n *corev1.Node) gpures.Offer {
	if o, ok := j.nodeOffers[n]; ok {
		return o
	}
	o := j.configs.Offer(n).WithExtended(j.extended[n.Name])
	j.nodeOffers[n] = o
	return o
}

func requestKey(reqs []gpures.Request) string {
	var b []byte
	for _, r := range reqs {
		b = append(b, r.Name...)
		b = append(b, '=')
		b = strconv.AppendInt(b, r.Value, 10)
		b = append(b, 0)
	}
	return string(b)
}

func requestMap(reqs []gpures.Request) map[string]any {
	out := make(map[string]any, len(reqs))
	for _, r := range reqs {
		out[string(r.Name)] = r.Value
	}
	return out
}

// resourcesField points at the resources of the first container (or
// init container) that asks for name.
func resourcesField(w *inventory.Workload, name corev1.ResourceName) []any {
	spec := &w.Template.Spec
	for _, list := range []struct {
		field string
		cs    []corev1.Container
	}{{"containers", spec.Containers}, {"initContainers", spec.InitContainers}} {
		for i, ctr := range list.cs {
			for _, rl := range []corev1.ResourceList{ctr.Resources.Limits, ctr.Resources.Requests} {
				if _, ok := rl[name]; ok {
					return append(slices.Clone(w.SpecPath), list.field, i, "resources")
				}
			}
		}
	}
	return slices.Clone(w.SpecPath)
}
