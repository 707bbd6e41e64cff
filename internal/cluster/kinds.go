package cluster

import (
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// Kind is a resource drvcheck reads (or, for its report, writes), named as
// RBAC names it.
type Kind struct {
	Resource   string // e.g. "poddisruptionbudgets"
	Group      string // API group; "" for the core group
	Version    string // "" for the version the API prefers
	ObjectKind string // e.g. "PodDisruptionBudget"
}

// String names the resource as kubectl and RBAC errors do,
// e.g. "poddisruptionbudgets.policy".
func (k Kind) String() string {
	if k.Group == "" {
		return k.Resource
	}
	return k.Resource + "." + k.Group
}

// APIVersion is the kind's group/version, as manifests write it.
func (k Kind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// entry is the kind's entry in inventory.Kinds, nil for kinds drvcheck
// does not read.
func (k Kind) entry() *inventory.Kind { return inventory.Lookup(k.Group, k.ObjectKind) }

func kindOf(k *inventory.Kind) Kind { return Kind{k.Resource, k.Group, k.Version, k.Name} }

// AllKinds is every kind drvcheck reads (inventory.Kinds), in the order
// errors are reported. deploy/rbac.yaml grants get and list on exactly
// these; a test keeps the two in step.
var AllKinds = func() []Kind {
	out := make([]Kind, len(inventory.Kinds))
	for i, k := range inventory.Kinds {
		out[i] = kindOf(k)
	}
	return out
}()

// The kinds commands ask for by name.
var (
	Nodes           = kindOf(inventory.Lookup("", "Node"))
	Deployments     = kindOf(inventory.Lookup("apps", "Deployment"))
	ClusterPolicies = kindOf(inventory.Lookup(operator.Group, "ClusterPolicy"))
	NVIDIADrivers   = kindOf(inventory.Lookup(operator.Group, "NVIDIADriver"))
	Pods            = kindOf(inventory.Lookup("", "Pod"))
)
