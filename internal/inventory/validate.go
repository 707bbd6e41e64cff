package inventory

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validate applies the API server's own checks (kubernetes
// pkg/apis/{core,apps,batch,policy}/validation) to the fields drvcheck's
// verdicts rest on, in its words: a spec the API server refuses never
// reaches a cluster, so judging it would answer for an object that cannot
// exist, a PodDisruptionBudget with minAvailable -1 passing, say.
func validate(k *Kind, x metav1.Object) field.ErrorList {
	if b, ok := x.(*policyv1.PodDisruptionBudget); ok {
		return validateBudget(&b.Spec, field.NewPath("spec"))
	}
	if k.typed.templates == nil {
		return nil
	}
	var errs field.ErrorList
	for _, t := range k.typed.templates(x) {
		errs = append(errs, nonNegative(t.count, pathOf(t.countPath))...)
		errs = append(errs, validatePodSpec(&t.template.Spec, pathOf(t.path))...)
		errs = append(errs, validateResources(&t.template.Spec, pathOf(t.path))...)
	}
	return errs
}

// pathOf is a manifest path as the API server writes it.
func pathOf(p []any) *field.Path {
	if len(p) == 0 {
		return nil
	}
	out := field.NewPath(p[0].(string))
	for _, x := range p[1:] {
		out = out.Child(x.(string))
	}
	return out
}

func nonNegative(v *int32, p *field.Path) field.ErrorList {
	if v != nil && *v < 0 {
		return field.ErrorList{field.Invalid(p, *v, "must be greater than or equal to 0")}
	}
	return nil
}

// validateBudget is ValidatePodDisruptionBudgetSpec's checks of the two
// numbers.
func validateBudget(s *policyv1.PodDisruptionBudgetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(p.Child("minAvailable"), s.MinAvailable.String(), "minAvailable and maxUnavailable cannot be both set"))
	}
	errs = append(errs, intOrPercent(s.MinAvailable, p.Child("minAvailable"))...)
	return append(errs, intOrPercent(s.MaxUnavailable, p.Child("maxUnavailable"))...)
}

func intOrPercent(v *intstr.IntOrString, p *field.Path) field.ErrorList {
	switch {
	case v == nil:
		return nil
	case v.Type == intstr.Int:
		if v.IntVal < 0 {
			return field.ErrorList{field.Invalid(p, v.IntVal, "must be greater than or equal to 0")}
		}
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	switch {
	case !strings.HasSuffix(v.StrVal, "%") || err != nil:
		return field.ErrorList{field.Invalid(p, v.StrVal, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")}
	case n < 0:
		return field.ErrorList{field.Invalid(p, v.StrVal, "must be greater than or equal to 0")}
	case n > 100:
		return field.ErrorList{field.Invalid(p, v.StrVal, "must not be greater than 100%")}
	}
	return nil
}

// validatePodSpec checks the required node affinity's requirements as
// ValidateNodeSelectorRequirement does: the scheduler would otherwise read
// an operator it does not know as matching no node.
func validatePodSpec(s *corev1.PodSpec, p *field.Path) field.ErrorList {
	if s.Affinity == nil || s.Affinity.NodeAffinity == nil || s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	terms := p.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	var errs field.ErrorList
	for i, t := range s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for j, r := range t.MatchExpressions {
			errs = append(errs, requirement(r, terms.Index(i).Child("matchExpressions").Index(j))...)
		}
		for j, r := range t.MatchFields {
			errs = append(errs, requirement(r, terms.Index(i).Child("matchFields").Index(j))...)
		}
	}
	return errs
}

func requirement(r corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return field.ErrorList{field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'")}
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			return field.ErrorList{field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")}
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		// The value's form is DRV011's to judge; the API server only
		// wants one, which DRV011 reports too.
	default:
		return field.ErrorList{field.NotSupported(p.Child("operator"), r.Operator, []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})}
	}
	return nil
}

// validateResources checks each container's requests and limits as
// ValidateResourceRequirements does (validateResourceQuantityValue,
// ValidateNonnegativeQuantity): none negative, and an extended resource
// (nvidia.com/gpu) whole. A GPU limit of -1 would otherwise count as a
// pod that frees a GPU.
func validateResources(s *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, group := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", s.InitContainers}, {"containers", s.Containers}} {
		for i, c := range group.cs {
			at := p.Child(group.name).Index(i).Child("resources")
			errs = append(errs, quantities(c.Resources.Limits, at.Child("limits"))...)
			errs = append(errs, quantities(c.Resources.Requests, at.Child("requests"))...)
		}
	}
	return errs
}

// quantities words the refused quantities of l in name order, so that
// the first is the same on every run; a list with none costs no sort.
func quantities(l corev1.ResourceList, p *field.Path) field.ErrorList {
	refused := false
	for name, q := range l {
		refused = refused || quantityWhy(name, q) != ""
	}
	if !refused {
		return nil
	}
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(l)) {
		q := l[name]
		if why := quantityWhy(name, q); why != "" {
			errs = append(errs, field.Invalid(p.Key(string(name)), q.String(), why))
		}
	}
	return errs
}

func quantityWhy(name corev1.ResourceName, q resource.Quantity) string {
	switch {
	case q.Sign() < 0:
		return "must be greater than or equal to 0"
	case extendedResource(name) && q.MilliValue()%1000 != 0:
		return "must be an integer"
	}
	return ""
}

// extendedResource is IsExtendedResourceName: a name with a domain
// other than Kubernetes' own, not a quota's "requests." one.
func extendedResource(name corev1.ResourceName) bool {
	n := string(name)
	return strings.Contains(n, "/") && !strings.Contains(n, "kubernetes.io/") && !strings.HasPrefix(n, "requests.")
}

// fieldPath turns "spec.template.spec.affinity.x[0].operator" into the
// path FieldLine follows; a bracket holds an index or a map key, which
// may hold dots (limits[nvidia.com/gpu]).
func fieldPath(s string) []any {
	var out []any
	for s != "" {
		end := strings.IndexAny(s, ".[")
		if end < 0 {
			return append(out, s)
		}
		if end > 0 {
			out = append(out, s[:end])
		}
		if s[end] == '.' {
			s = s[end+1:]
			continue
		}
		inside, rest, _ := strings.Cut(s[end+1:], "]")
		if i, err := strconv.Atoi(inside); err == nil {
			out = append(out, i)
		} else {
			out = append(out, inside)
		}
		s = strings.TrimPrefix(rest, ".")
	}
	return out
}
