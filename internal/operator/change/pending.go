package change

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// Labels and annotations the DaemonSet controller keeps: the template
// generation of a DaemonSet, and the one each of its pods was made from.
const (
	templateGeneration    = "deprecated.daemonset.template.generation"
	podTemplateGeneration = "pod-template-generation"
	// DriverConfigDigestEnv is the env the operator puts its hash of the
	// driver's configuration in (internal/config/driver_config_digest.go:27).
	DriverConfigDigestEnv = "DRIVER_CONFIG_DIGEST"
)

// PendingChanges are, live, what the driver DaemonSets' current templates
// do to each node's driver pod: the rollout the cluster already asks for
// (plan --all without --driver). A pod made from the current template is
// left alone; one made from an older template is restarted in place when
// its DRIVER_CONFIG_DIGEST is the template's and the operator has
// restart-only upgrades (v26.7.0), else upgraded in full. Out of date is
// read from the DaemonSet controller's template generation; the upgrade
// library compares controller-revision-hash with the newest
// ControllerRevision (common_manager.go:299-320), which differs only for a
// template changed and changed back.
//
// With the operator's version unknown (known false: no gpu-operator image
// with a version tag, e.g. one pinned by digest), restart-only is not
// promised.
func PendingChanges(daemonSets []*appsv1.DaemonSet, pods []*corev1.Pod, v operator.Version, known bool) map[string]NodeChange {
	out := map[string]NodeChange{}
	for _, p := range pods {
		ds := ownerOf(p, daemonSets)
		if ds == nil || !nodefacts.DriverPodLabels(ds.Spec.Template.Labels) || p.Spec.NodeName == "" {
			continue
		}
		c := NodeChange{Node: p.Spec.NodeName, Scope: ds.Namespace + "/" + ds.Name}
		have, want := p.Labels[podTemplateGeneration], ds.Annotations[templateGeneration]
		running, desired := ConfigDigest(&p.Spec), ConfigDigest(&ds.Spec.Template.Spec)
		switch {
		case have != "" && have == want:
			c.Kind, c.Why = NoOp, "its driver pod runs the DaemonSet's current template"
		case known && v.AtLeast(26, 7) && running != "" && running == desired:
			c.Kind, c.Why = RestartOnly, "its driver pod's DRIVER_CONFIG_DIGEST is the new template's ("+desired+")"
		case !v.AtLeast(26, 7):
			c.Kind, c.Why = FullRollout, "its driver pod is out of date, and operator "+v.String()+" has no restart-only upgrades"
		case !known:
			c.Kind, c.Why = FullRollout, "its driver pod is out of date, and the operator's version is unknown (give --operator-version): restart-only upgrades need v26.7.0"
		case running == "" || desired == "":
			c.Kind, c.Why = FullRollout, "its driver pod is out of date, and a DRIVER_CONFIG_DIGEST is missing (restart_only.go:40-44)"
		default:
			c.Kind, c.Why = FullRollout, "its driver pod's DRIVER_CONFIG_DIGEST ("+running+") is not the new template's ("+desired+")"
		}
		out[c.Node] = c
	}
	return out
}

func ownerOf(p *corev1.Pod, daemonSets []*appsv1.DaemonSet) *appsv1.DaemonSet {
	for _, r := range p.OwnerReferences {
		if r.Kind != "DaemonSet" {
			continue
		}
		for _, ds := range daemonSets {
			if ds.Namespace == p.Namespace && ds.Name == r.Name {
				return ds
			}
		}
	}
	return nil
}

// ConfigDigest is the first DRIVER_CONFIG_DIGEST of spec, init containers
// first, whatever the container's name, as the operator reads it
// (driver_config_digest.go:32-55).
func ConfigDigest(spec *corev1.PodSpec) string {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, e := range c.Env {
				if e.Name == DriverConfigDigestEnv && e.Value != "" {
					return e.Value
				}
			}
		}
	}
	return ""
}
