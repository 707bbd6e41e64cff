package drain

// Eviction is one pod a drain removed, and where its replacement went.
type Eviction struct {
	Pod      *Pod
	From, To string // To is "" when the replacement stays Pending
	Gone     bool   // no controller, or finished: the pod is deleted for good
	Why      string // why no node fits the replacement
}

// Block is a pod the eviction API refuses.
type Block struct {
	Pod     *Pod
	Outcome Outcome
}

// DrainResult is the outcome of draining one node: what the filters make
// of its pods (Phase.Screen), then the evictions a simulation replays
// (internal/placement).
type DrainResult struct {
	Node    string
	Evicted []Eviction
	Blocked []Block
	// Refused are pods the drain's filters refuse with the drain's flags;
	// kubectl then evicts no pod at all.
	Refused             []*Pod
	NeedsForce          []*Pod
	NeedsDeleteEmptyDir []*Pod
	Stays               []*Pod // DaemonSet and mirror pods
	// Kept are DaemonSet and mirror pods a Strict phase had to remove:
	// GPU-pod deletion fails at once on them.
	Kept []*Pod
}

// Done reports whether the drain emptied the node.
func (r DrainResult) Done() bool { return len(r.Blocked) == 0 && len(r.Refused) == 0 }
