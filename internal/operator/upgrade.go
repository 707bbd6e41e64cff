package operator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// UpgradePolicySpec is driver.upgradePolicy as written: ClusterPolicy
// spec.driver.upgradePolicy, NVIDIADriver spec.upgradePolicy, the chart's
// driver.upgradePolicy (k8s-operator-libs api/upgrade/v1alpha1
// DriverUpgradePolicySpec). Unset fields take the CRD's defaults, as the
// API server would give them (see Policy).
type UpgradePolicySpec struct {
	AutoUpgrade         *bool               `json:"autoUpgrade,omitempty"`
	MaxParallelUpgrades *int                `json:"maxParallelUpgrades,omitempty"`
	MaxUnavailable      *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	WaitForCompletion   *struct {
		PodSelector    string `json:"podSelector,omitempty"`
		TimeoutSeconds *int   `json:"timeoutSeconds,omitempty"`
	} `json:"waitForCompletion,omitempty"`
	PodDeletion *PhaseSpec `json:"podDeletion,omitempty"`
	// GPUPodDeletion is the chart's name for podDeletion; the CRD has no
	// such field, so a ClusterPolicy that writes it loses it.
	GPUPodDeletion *PhaseSpec `json:"gpuPodDeletion,omitempty"`
	Drain          *PhaseSpec `json:"drain,omitempty"`
}

// PhaseSpec is podDeletion or drain as written.
type PhaseSpec struct {
	Enable         *bool  `json:"enable,omitempty"` // drain only
	Force          bool   `json:"force,omitempty"`
	DeleteEmptyDir bool   `json:"deleteEmptyDir,omitempty"`
	PodSelector    string `json:"podSelector,omitempty"`
	TimeoutSeconds *int   `json:"timeoutSeconds,omitempty"`
}

// Policy is an upgrade policy with every default filled in: what the
// upgrade controller does.
type Policy struct {
	// Manual: no operator configuration was read (the lab): the upgrade is
	// the manual procedure, one kubectl drain of every pod per node.
	Manual      bool   `json:"manual"`
	From        string `json:"from"` // where it was read
	AutoUpgrade bool   `json:"auto_upgrade"`
	MaxParallel int    `json:"max_parallel_upgrades"` // 0: no limit
	// MaxUnavailable is an int or a percent of the managed nodes, rounded
	// up; "" means every managed node.
	MaxUnavailable string `json:"max_unavailable"`
	WaitForJobs    Phase  `json:"wait_for_completion"`
	PodDeletion    Phase  `json:"pod_deletion"`
	Drain          Phase  `json:"drain"`
}

// Phase is one step that removes pods from a node, with its settings.
type Phase struct {
	Enabled        bool   `json:"enabled"`
	Force          bool   `json:"force"`
	DeleteEmptyDir bool   `json:"delete_emptydir"`
	PodSelector    string `json:"pod_selector"`
	TimeoutSeconds int    `json:"timeout_seconds"` // 0: forever
}

// The CRD's defaults (upgrade_spec.go's kubebuilder markers).
const (
	DefaultMaxParallel    = 1
	DefaultMaxUnavailable = "25%"
	DefaultPhaseTimeout   = 300
)

// DrainSkipLabel exempts a pod from the fallback drain: the GPU Operator
// ANDs `<key>!=true` to drain.podSelector (its own Deployment carries it).
const DrainSkipLabel = "nvidia.com/gpu-driver-upgrade-drain.skip"

// ManualPolicy is the lab's procedure: kubectl drain --ignore-daemonsets
// of every pod, with the given flags, maxParallel nodes at a time.
func ManualPolicy(maxParallel int, force, deleteEmptyDir bool) Policy {
	return Policy{Manual: true, From: "the manual procedure (no operator configuration read)", AutoUpgrade: true,
		MaxParallel: maxParallel,
		Drain:       Phase{Enabled: true, Force: force, DeleteEmptyDir: deleteEmptyDir}}
}

// PolicyOf fills the CRD's defaults into spec, read from where. A nil spec
// is no upgradePolicy at all, which the controller reads as autoUpgrade
// off, except on an NVIDIADriver (v26.7+), where a missing policy means
// autoUpgrade on with the defaults.
func PolicyOf(spec *UpgradePolicySpec, where string, missingMeansAuto bool) Policy {
	p := Policy{From: where, MaxParallel: DefaultMaxParallel, MaxUnavailable: DefaultMaxUnavailable,
		PodDeletion: Phase{Enabled: true, TimeoutSeconds: DefaultPhaseTimeout},
		Drain:       Phase{TimeoutSeconds: DefaultPhaseTimeout}}
	if spec == nil {
		p.AutoUpgrade = missingMeansAuto
		return p
	}
	p.AutoUpgrade = spec.AutoUpgrade != nil && *spec.AutoUpgrade
	if spec.MaxParallelUpgrades != nil {
		p.MaxParallel = *spec.MaxParallelUpgrades
	}
	if spec.MaxUnavailable != nil {
		p.MaxUnavailable = spec.MaxUnavailable.String()
	}
	if w := spec.WaitForCompletion; w != nil {
		p.WaitForJobs = Phase{Enabled: w.PodSelector != "", PodSelector: w.PodSelector, TimeoutSeconds: orInt(w.TimeoutSeconds, 0)}
	}
	if d := spec.PodDeletion; d != nil {
		p.PodDeletion = Phase{Enabled: true, Force: d.Force, DeleteEmptyDir: d.DeleteEmptyDir, PodSelector: d.PodSelector,
			TimeoutSeconds: orInt(d.TimeoutSeconds, DefaultPhaseTimeout)}
	}
	if d := spec.Drain; d != nil {
		p.Drain = Phase{Enabled: d.Enable != nil && *d.Enable, Force: d.Force, DeleteEmptyDir: d.DeleteEmptyDir,
			PodSelector: d.PodSelector, TimeoutSeconds: orInt(d.TimeoutSeconds, DefaultPhaseTimeout)}
	}
	return p
}

// ChartPolicy is PolicyOf for what the Helm chart installs: a values file
// lies over the chart's values, whose driver.upgradePolicy has autoUpgrade
// true, so it is true unless the file sets it.
func ChartPolicy(spec *UpgradePolicySpec, where string) Policy {
	p := PolicyOf(spec, where, true)
	if spec != nil && spec.AutoUpgrade == nil {
		p.AutoUpgrade = true
	}
	return p
}

func orInt(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// Check refuses a policy the API server would refuse, naming the field.
func (p Policy) Check() error {
	switch {
	case p.MaxParallel < 0:
		return fmt.Errorf("%s: maxParallelUpgrades %d: must be 0 (no limit) or more", p.From, p.MaxParallel)
	case p.WaitForJobs.TimeoutSeconds < 0 || p.PodDeletion.TimeoutSeconds < 0 || p.Drain.TimeoutSeconds < 0:
		return fmt.Errorf("%s: timeoutSeconds must be 0 (forever) or more", p.From)
	}
	if _, err := p.Unavailable(1); err != nil {
		return err
	}
	for _, s := range []string{p.WaitForJobs.PodSelector, p.PodDeletion.PodSelector, p.Drain.PodSelector} {
		if _, err := labels.Parse(s); err != nil {
			return fmt.Errorf("%s: podSelector %q: %v", p.From, s, err)
		}
	}
	return nil
}

// Unavailable is maxUnavailable over total managed nodes, rounded up as
// GetScaledValueFromIntOrPercent does; no limit is total.
func (p Policy) Unavailable(total int) (int, error) {
	if p.MaxUnavailable == "" {
		return total, nil
	}
	v := intstr.Parse(p.MaxUnavailable)
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, total, true)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: maxUnavailable %q: want a number or a percentage such as 25%%", p.From, p.MaxUnavailable)
	}
	return n, nil
}

// DrainSelector is the drain phase's pod selector as the GPU Operator
// runs it: drain.podSelector AND not drain-skipped.
func (p Policy) DrainSelector() labels.Selector {
	s, err := labels.Parse(p.Drain.PodSelector)
	if err != nil {
		return labels.Nothing()
	}
	if p.Manual {
		return s
	}
	r, _ := labels.NewRequirement(DrainSkipLabel, "!=", []string{"true"})
	return s.Add(*r)
}

// PolicyFlags are plan's upgrade-policy flags; nil fields were not given.
// Each given one wins over the policy read from the objects.
type PolicyFlags struct {
	MaxParallel               *int
	MaxUnavailable            *string
	Drain                     *bool
	PodDeletionForce          *bool
	PodDeletionDeleteEmptyDir *bool
	PodDeletionTimeoutSeconds *int
	DrainForce, DrainEmptyDir *bool
	DrainTimeoutSeconds       *int
}

// operatorOnly says whether a flag given is one only the operator's flow
// has (the manual procedure has a drain and a parallelism, nothing else).
func (f PolicyFlags) operatorOnly() bool {
	return f.MaxUnavailable != nil || f.Drain != nil || f.PodDeletionForce != nil || f.PodDeletionDeleteEmptyDir != nil ||
		f.PodDeletionTimeoutSeconds != nil || f.DrainTimeoutSeconds != nil
}

// Policies returns, for a node's owner, the policy of its scope and the
// scope's name. Without a profile and without operator-only flags it is
// the manual procedure (the lab's); operator-only flags alone make the
// operator's defaults with autoUpgrade on.
func Policies(p *Profile, f PolicyFlags) (func(owner string) (Policy, string), error) {
	if p == nil {
		base := ManualPolicy(DefaultMaxParallel, false, false)
		name := "all GPU nodes"
		if f.operatorOnly() {
			base = PolicyOf(nil, "the CRD's defaults (no operator configuration read)", true)
		}
		pol, err := f.apply(base)
		return func(string) (Policy, string) { return pol, name }, err
	}
	byOwner := map[string]Policy{}
	for _, d := range p.Drivers {
		pol, err := f.apply(d.Upgrade)
		if err != nil {
			return nil, err
		}
		byOwner[d.Owner()] = pol
	}
	first := p.Drivers[0]
	return func(owner string) (Policy, string) {
		if pol, ok := byOwner[owner]; ok && p.Scoped() {
			return pol, owner
		}
		if p.Scoped() {
			return byOwner[first.Owner()], "nodes no NVIDIADriver owns"
		}
		return byOwner[first.Owner()], "every managed node"
	}, nil
}

// apply lays the flags given over pol.
func (f PolicyFlags) apply(pol Policy) (Policy, error) {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setInt(&pol.MaxParallel, f.MaxParallel)
	if f.MaxUnavailable != nil {
		pol.MaxUnavailable = *f.MaxUnavailable
	}
	set(&pol.Drain.Enabled, f.Drain)
	set(&pol.PodDeletion.Force, f.PodDeletionForce)
	set(&pol.PodDeletion.DeleteEmptyDir, f.PodDeletionDeleteEmptyDir)
	setInt(&pol.PodDeletion.TimeoutSeconds, f.PodDeletionTimeoutSeconds)
	set(&pol.Drain.Force, f.DrainForce)
	set(&pol.Drain.DeleteEmptyDir, f.DrainEmptyDir)
	setInt(&pol.Drain.TimeoutSeconds, f.DrainTimeoutSeconds)
	if f != (PolicyFlags{}) && !pol.Manual {
		pol.From += ", with the flags over it"
	}
	return pol, pol.Check()
}
