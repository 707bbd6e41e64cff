package main

import (
	"fmt"
	"time"

	"github.com/drvcheck/drvcheck/internal/operator"
)

// policyFlags are plan --all's upgrade-policy flags: each, when given,
// wins over driver.upgradePolicy as read from the operator's objects.
type policyFlags struct {
	maxParallel               int
	maxUnavailable            string
	drain                     bool
	podForce, podEmptyDir     bool
	drainForce, drainEmptyDir bool
	podTimeout, drainTimeout  time.Duration
}

func addPolicyFlags(o *options) *policyFlags {
	f := &policyFlags{}
	fs := o.fs
	fs.IntVar(&f.maxParallel, "max-parallel-upgrades", operator.DefaultMaxParallel, "--all: upgradePolicy.maxParallelUpgrades, nodes upgraded at once (0 = no limit)")
	fs.StringVar(&f.maxUnavailable, "max-unavailable", operator.DefaultMaxUnavailable, "--all: upgradePolicy.maxUnavailable, managed nodes that may be unavailable at once (a number or a percentage)")
	fs.BoolVar(&f.drain, "drain", false, "--all: upgradePolicy.drain.enable, the drain fallback when GPU-pod deletion fails")
	fs.BoolVar(&f.podForce, "pod-deletion-force", false, "--all: upgradePolicy.podDeletion.force, delete GPU pods without a controller")
	fs.BoolVar(&f.podEmptyDir, "pod-deletion-delete-emptydir", false, "--all: upgradePolicy.podDeletion.deleteEmptyDir, delete GPU pods with emptyDir volumes")
	fs.DurationVar(&f.podTimeout, "pod-deletion-timeout", operator.DefaultPhaseTimeout*time.Second, "--all: upgradePolicy.podDeletion.timeoutSeconds (0 = forever)")
	fs.BoolVar(&f.drainForce, "drain-force", false, "--all: upgradePolicy.drain.force (in the manual procedure: kubectl drain --force)")
	fs.BoolVar(&f.drainEmptyDir, "drain-delete-emptydir", false, "--all: upgradePolicy.drain.deleteEmptyDir (in the manual procedure: --delete-emptydir-data)")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", operator.DefaultPhaseTimeout*time.Second, "--all: upgradePolicy.drain.timeoutSeconds (0 = forever)")
	return f
}

// given keeps the flags the user set.
func (f *policyFlags) given(o *options) operator.PolicyFlags {
	var out operator.PolicyFlags
	changed := o.fs.Changed
	if changed("max-parallel-upgrades") {
		out.MaxParallel = &f.maxParallel
	}
	if changed("max-unavailable") {
		out.MaxUnavailable = &f.maxUnavailable
	}
	for name, dst := range map[string]struct {
		v   *bool
		out **bool
	}{
		"drain": {&f.drain, &out.Drain}, "pod-deletion-force": {&f.podForce, &out.PodDeletionForce},
		"pod-deletion-delete-emptydir": {&f.podEmptyDir, &out.PodDeletionDeleteEmptyDir},
		"drain-force":                  {&f.drainForce, &out.DrainForce}, "drain-delete-emptydir": {&f.drainEmptyDir, &out.DrainEmptyDir},
	} {
		if changed(name) {
			*dst.out = dst.v
		}
	}
	if changed("pod-deletion-timeout") {
		s := int(f.podTimeout / time.Second)
		out.PodDeletionTimeoutSeconds = &s
	}
	if changed("drain-timeout") {
		s := int(f.drainTimeout / time.Second)
		out.DrainTimeoutSeconds = &s
	}
	return out
}

// checkPlanFlags refuses flags that do not fit the mode: the policy flags
// belong to --all, kubectl's drain flags to a NODE plan.
func checkPlanFlags(o *options, all bool) error {
	policy := []string{"max-parallel-upgrades", "max-unavailable", "drain", "pod-deletion-force", "pod-deletion-delete-emptydir",
		"pod-deletion-timeout", "drain-force", "drain-delete-emptydir", "drain-timeout"}
	for _, name := range policy {
		if o.fs.Changed(name) && !all {
			return fmt.Errorf("plan: --%s is an upgrade policy flag: it needs --all", name)
		}
	}
	for _, name := range []string{"force", "delete-emptydir-data"} {
		if o.fs.Changed(name) && all {
			return fmt.Errorf("plan: --%s is kubectl drain's flag for one NODE; with --all use --drain-force, --drain-delete-emptydir or --pod-deletion-force, --pod-deletion-delete-emptydir", name)
		}
	}
	if v, _ := o.fs.GetInt("max-parallel-upgrades"); v < 0 {
		return fmt.Errorf("plan: --max-parallel-upgrades %d: want 0 (no limit) or more", v)
	}
	for _, name := range []string{"pod-deletion-timeout", "drain-timeout"} {
		if d, _ := o.fs.GetDuration(name); d < 0 {
			return fmt.Errorf("plan: --%s %s: must not be negative", name, d)
		}
	}
	return nil
}
