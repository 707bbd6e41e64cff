package status

// States are the values of nvidia.com/gpu-driver-upgrade-state in the order
// the upgrade controller moves a node through them (k8s-operator-libs
// pkg/upgrade/consts.go), upgrade-done last; upgrade-failed is off the path.
// node-maintenance-required and post-maintenance-required only occur in
// requestor mode, which the GPU Operator does not use.
var States = []string{
	"upgrade-required",
	"cordon-required",
	"wait-for-jobs-required",
	"pod-deletion-required",
	"drain-required",
	"node-maintenance-required",
	"post-maintenance-required",
	"pod-restart-required",
	"validation-required",
	"uncordon-required",
	"upgrade-done",
}

// Failed is the state of a node whose upgrade failed; the operator does not
// retry it until it is relabelled upgrade-required.
const Failed = "upgrade-failed"

// Step is the 1-based position of state on the upgrade path; 0 for unset,
// upgrade-failed and values the controller does not use.
func Step(state string) int {
	for i, s := range States {
		if s == state {
			return i + 1
		}
	}
	return 0
}

// drainStates are the states in which evictions decide.
var drainStates = map[string]bool{
	"wait-for-jobs-required": true,
	"pod-deletion-required":  true,
	"drain-required":         true,
	Failed:                   true,
}

// imageStates are the states in which the new driver image decides.
var imageStates = map[string]bool{
	"pod-restart-required": true,
	"validation-required":  true,
	Failed:                 true,
}
