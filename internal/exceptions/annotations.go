package exceptions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
)

// The annotations an object carries to accept findings about itself.
const (
	AnnotationIgnore  = "drvcheck.io/ignore"         // rule ids, comma-separated: "DRV014,DRV023"
	AnnotationReason  = "drvcheck.io/ignore-reason"  // required
	AnnotationExpires = "drvcheck.io/ignore-expires" // optional YYYY-MM-DD
)

// maxOwners bounds the walk up ownerReferences: Pod -> ReplicaSet ->
// Deployment and Pod -> Job -> CronJob need two steps.
const maxOwners = 3

// annotated is what one object says about its own findings.
type annotated struct {
	rules     []string
	rulesText string
	reason    string
	expires   string
	until     time.Time
	problem   string // why the annotation cannot suppress, or ""
	where     string // "Kind/namespace/name", for notes
	owner     *object.Ref
}

// index maps every object to its exception annotations and its controller.
// An object without drvcheck.io/ignore is present only when it has a
// controller, so that chains can be followed through it.
type index map[object.Ref]annotated

// indexOf reads annotations from the typed objects, and from the objects as
// read when the inventory kept them (kinds only custom rules know).
func indexOf(inv *inventory.Inventory) index {
	ix := index{}
	if inv == nil {
		return ix
	}
	for _, m := range inv.Metas() {
		ix.add(m.Ref, m.Meta.Annotations, ownerOf(m.Ref, m.Meta))
	}
	for _, raw := range inv.Raw() {
		ref, ann := rawMeta(raw)
		if _, seen := ix[ref]; !seen && ref.Kind != "" {
			ix.add(ref, ann, nil)
		}
	}
	return ix
}

func (ix index) add(ref object.Ref, ann map[string]string, owner *object.Ref) {
	list, ok := ann[AnnotationIgnore]
	if !ok && owner == nil {
		return
	}
	a := annotated{where: ref.String(), owner: owner}
	if ok {
		a = parse(ref, list, ann[AnnotationReason], ann[AnnotationExpires])
		a.owner = owner
	}
	ix[ref] = a
}

// parse reads the three annotations. A missing reason or a malformed date
// leaves a problem, which the finding's message will carry.
func parse(ref object.Ref, list, reason, expires string) annotated {
	a := annotated{where: ref.String(), reason: strings.TrimSpace(reason), expires: strings.TrimSpace(expires)}
	for _, r := range strings.Split(list, ",") {
		if r = strings.TrimSpace(r); r != "" {
			a.rules = append(a.rules, r)
		}
	}
	a.rulesText = strings.Join(a.rules, ",")
	switch {
	case a.reason == "":
		a.problem = fmt.Sprintf("%s on %s has no %s, so it does not suppress", AnnotationIgnore, a.where, AnnotationReason)
	case a.expires != "":
		t, err := time.Parse(dateLayout, a.expires)
		if err != nil {
			a.problem = fmt.Sprintf("%s %q on %s is not a YYYY-MM-DD date, so %s does not suppress",
				AnnotationExpires, a.expires, a.where, AnnotationIgnore)
		}
		a.until = t
	}
	return a
}

// lists reports whether the annotation names rule (ids compare without case).
func (a annotated) lists(rule string) bool {
	for _, r := range a.rules {
		if strings.EqualFold(r, rule) {
			return true
		}
	}
	return false
}

func (a annotated) expired(today time.Time) bool {
	return !a.until.IsZero() && today.After(a.until)
}

// chain returns the annotations of ref and of the controllers above it, so
// that an annotation on a Deployment also covers findings about its pods in
// a live cluster.
func (ix index) chain(ref object.Ref) []annotated {
	var out []annotated
	for range maxOwners + 1 {
		a, ok := ix[ref]
		if !ok {
			break
		}
		if len(a.rules) > 0 {
			out = append(out, a)
		}
		if a.owner == nil {
			break
		}
		ref = *a.owner
	}
	return out
}

// sorted lists the indexed objects by Kind/namespace/name.
func (ix index) sorted() []object.Ref {
	out := make([]object.Ref, 0, len(ix))
	for r := range ix {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b object.Ref) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

// ownerOf returns the object's controller, in the object's namespace.
func ownerOf(ref object.Ref, m *metav1.ObjectMeta) *object.Ref {
	c := metav1.GetControllerOfNoCopy(m)
	if c == nil {
		return nil
	}
	return &object.Ref{Kind: c.Kind, Namespace: ref.Namespace, Name: c.Name}
}

// rawMeta reads kind, namespace, name and annotations of an object as read.
func rawMeta(raw map[string]any) (object.Ref, map[string]string) {
	ref := object.Ref{}
	ref.Kind, _ = raw["kind"].(string)
	meta, _ := raw["metadata"].(map[string]any)
	ref.Name, _ = meta["name"].(string)
	ref.Namespace, _ = meta["namespace"].(string)
	ann := map[string]string{}
	if m, ok := meta["annotations"].(map[string]any); ok {
		for k, v := range m {
			if s, ok := v.(string); ok {
				ann[k] = s
			}
		}
	}
	return ref, ann
}
