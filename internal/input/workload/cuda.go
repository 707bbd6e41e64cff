package workload

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// MinDriverAnnotation states a workload's driver floor explicitly; it wins
// over what its images imply.
const MinDriverAnnotation = "drvcheck.io/min-driver-branch"

// maxListedNodes bounds the nodes listed in a fact; the count is exact.
const maxListedNodes = 10

type imageFloor struct {
	floor cuda.Floor
	ok    bool
}

// classFacts are the GPU facts of a class, read from its representative:
// the fleet is split on the labels they come from.
type classFacts struct {
	gpu    bool
	branch int // 0 when unknown
}

type olderKey struct {
	p     *sched.Placement
	floor int
}

type olderNodes struct {
	count int
	list  []any // {name, branch}, by name, at most maxListedNodes
}

// floorFact is a workload's driver floor and where it comes from.
type floorFact struct {
	branch int
	origin string // "annotation", "image" or "" (unknown)
	detail string // for messages
	image  string
	cuda   string
	field  []any
	err    string // the annotation is not a branch
}

// cudaFloor returns w's driver floor (DRV012) and the GPU nodes its
// affinity and tolerations admit whose driver branch is below it. Cordoned
// nodes count: a cordon ends, the affinity stays.
func (c *workloadFacts) cudaFloor(w *inventory.Workload, p *sched.Placement) map[string]any {
	f := c.floor(w)
	key := cudaKey{f.branch, f.origin, f.detail, f.image, f.cuda, f.err, docval.Pointer(f.field), nil}
	if f.branch > 0 {
		key.p = p // the older nodes are those p admits
	}
	return c.once(key, func() map[string]any {
		out := map[string]any{
			"floor":       f.branch,
			"origin":      f.origin,
			"detail":      f.detail,
			"image":       f.image,
			"cuda":        f.cuda,
			"compat":      string(c.compat()),
			"error":       f.err,
			"field":       key.field,
			"older_count": 0,
			"older_nodes": []any{},
		}
		if f.branch > 0 {
			older := c.older(p, f.branch)
			out["older_count"], out["older_nodes"] = older.count, older.list
		}
		return out
	})
}

// cudaKey is a floorFact with its field as a pointer, and the placement
// when the floor makes nodes older.
type cudaKey struct {
	branch                           int
	origin, detail, image, cuda, err string
	field                            string
	p                                *sched.Placement
}

func (c *workloadFacts) compat() cuda.Compat {
	if c.policy.Compat == "" {
		return cuda.Minor
	}
	return c.policy.Compat
}

// floor reads the annotation (pod template first, then the workload), else
// the highest floor among the images.
func (c *workloadFacts) floor(w *inventory.Workload) floorFact {
	if v, ok := w.Template.Annotations[MinDriverAnnotation]; ok {
		where := "the pod template"
		if w.Ref.Kind == "Pod" {
			where = "the Pod"
		}
		return annotationFloor(v, where, templateField(w, "annotations", MinDriverAnnotation))
	}
	if v, ok := w.Meta.Annotations[MinDriverAnnotation]; ok {
		return annotationFloor(v, "the "+w.Ref.Kind, []any{"metadata", "annotations", MinDriverAnnotation})
	}
	best := floorFact{field: specField(w)}
	s := &w.Template.Spec
	for _, list := range []struct {
		name string
		ctrs []corev1.Container
	}{{"initContainers", s.InitContainers}, {"containers", s.Containers}} {
		for i, ctr := range list.ctrs {
			f := c.imageFloor(ctr.Image)
			if !f.ok || f.floor.Branch <= best.branch {
				continue
			}
			best = floorFact{
				branch: f.floor.Branch,
				origin: "image",
				detail: fmt.Sprintf("image %s: %s", ctr.Image, f.floor.Describe(c.compat())),
				image:  ctr.Image,
				cuda:   f.floor.CUDA.String(),
				field:  specField(w, list.name, i, "image"),
			}
		}
	}
	return best
}

func annotationFloor(v, where string, field []any) floorFact {
	f := floorFact{origin: "annotation", field: field}
	b, err := nodefacts.ParseBranch(v)
	if err != nil {
		f.err = fmt.Sprintf("annotation %s on %s: %v", MinDriverAnnotation, where, err)
		return f
	}
	f.branch = b
	f.detail = fmt.Sprintf("annotation %s=%s on %s", MinDriverAnnotation, v, where)
	return f
}

func (c *workloadFacts) imageFloor(image string) imageFloor {
	if f, ok := c.imageFloors[image]; ok {
		return f
	}
	fl, ok := c.policy.ImageFloor(image)
	f := imageFloor{fl, ok}
	c.imageFloors[image] = f
	return f
}

// older lists the GPU nodes p admits whose branch is below floor.
func (c *workloadFacts) older(p *sched.Placement, floor int) olderNodes {
	key := olderKey{p, floor}
	if o, ok := c.olderNodes[key]; ok {
		return o
	}
	var hits []olderHit
	for _, v := range p.Classes {
		cf := c.classFactsOf(v.Class)
		if !v.Admits() || !cf.gpu || cf.branch == 0 || cf.branch >= floor {
			continue
		}
		for _, n := range v.Class.Nodes {
			hits = append(hits, olderHit{n.Name, cf.branch})
		}
	}
	o := listOlder(hits)
	c.olderNodes[key] = o
	return o
}

type olderHit struct {
	name   string
	branch int
}

// listOlder counts hits and lists the first by name.
func listOlder(hits []olderHit) olderNodes {
	sort.Slice(hits, func(i, j int) bool { return hits[i].name < hits[j].name })
	o := olderNodes{count: len(hits), list: []any{}}
	for _, h := range hits[:min(len(hits), maxListedNodes)] {
		o.list = append(o.list, map[string]any{"name": h.name, "branch": h.branch})
	}
	return o
}

func (c *workloadFacts) classFactsOf(cl *sched.Class) classFacts {
	if cf, ok := c.classFacts[cl]; ok {
		return cf
	}
	f, _ := c.facts.Get(cl.Rep.Name)
	cf := classFacts{gpu: f.GPU, branch: f.BranchNumber}
	c.classFacts[cl] = cf
	return cf
}
