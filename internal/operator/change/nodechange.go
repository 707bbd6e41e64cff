package change

import (
	"fmt"
	"slices"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/oneline"
)

// NodeChange is what a change does to one node's driver pod.
type NodeChange struct {
	Node  string `json:"node"`
	Scope string `json:"scope"`
	Kind  string `json:"kind"`
	Why   string `json:"why"`
}

// NodeChanges says, for each GPU node, what the change from base does to
// its driver pod: its scope's change, or a full rollout when its own
// image changes where its scope's fields do not (the OS tag or a
// precompiled kernel as the operator's version writes them) or it moves to
// another driver. A node that had no driver pod to change (managed in
// head, not in base) is a no-op; one base does not list is taken to run
// the base configuration. A node managed in base and not in head loses
// its driver pod (Removed): its DaemonSet no longer selects it, or is
// gone, and the DaemonSet controller deletes the pod at once, outside the
// upgrade controller.
func NodeChanges(scopes []ScopeChange, base, head *nodefacts.Set) []NodeChange {
	byOwner := map[string]ScopeChange{}
	for _, s := range scopes {
		byOwner[s.Owner] = s
	}
	var out []NodeChange
	for _, h := range head.List() {
		b, ok := base.Get(h.Name)
		if !h.GPU || !h.Image.Managed || h.Image.Owner == "" {
			if ok && b.GPU && b.Image.Managed && b.Image.Owner != "" {
				out = append(out, NodeChange{Node: h.Name, Scope: b.Image.Owner, Kind: Removed, Why: removedWhy(h)})
			}
			continue
		}
		c := NodeChange{Node: h.Name, Scope: h.Image.Owner}
		sc := byOwner[h.Image.Owner]
		switch {
		case ok && (!b.GPU || !b.Image.Managed):
			c.Kind, c.Why = NoOp, "gets its first driver pod: nothing to upgrade"
		case ok && b.Image.Owner != h.Image.Owner:
			c.Kind, c.Why = FullRollout, fmt.Sprintf("moves from %s to %s: its driver pod is replaced by another DaemonSet's at once, outside the upgrade controller, and its driver manager evicts its GPU pods", b.Image.Owner, h.Image.Owner)
		case ok && sc.Kind != FullRollout && b.Image.Ref != h.Image.Ref:
			c.Kind, c.Why = FullRollout, fmt.Sprintf("its driver image changes: %s → %s", b.Image.Ref, h.Image.Ref)
		case ok && sc.Kind != FullRollout && !slices.Equal(auxRefs(b), auxRefs(h)):
			c.Kind, c.Why = FullRollout, fmt.Sprintf("its driver pod's other images change: %v → %v", auxRefs(b), auxRefs(h))
		default:
			c.Kind, c.Why = sc.Kind, sc.summary()
			if !ok {
				c.Why += " (not among the base's nodes: taken to run the base configuration)"
			}
		}
		out = append(out, c)
	}
	return out
}

// removedWhy says why a node no longer gets a driver pod.
func removedWhy(h nodefacts.Facts) string {
	why := h.Image.Reason
	if why == "" {
		why = h.Image.OwnerError
	}
	if why == "" {
		why = "no driver of the new configuration selects it"
	}
	return "loses its driver pod: " + why + "; the DaemonSet controller deletes it at once, outside the upgrade controller"
}

func auxRefs(f nodefacts.Facts) []string {
	var out []string
	for _, a := range f.Image.Aux {
		out = append(out, a.Name+"="+a.Ref)
	}
	return out
}

// summary says in a line what decided a scope's change.
func (s ScopeChange) summary() string {
	if s.Why != "" {
		return s.Why
	}
	var digest, template []string
	for _, f := range s.Fields {
		switch f.Class {
		case InDigest, Unknown:
			digest = append(digest, f.Path)
		case InTemplate:
			template = append(template, f.Path)
		}
	}
	switch {
	case len(digest) > 0:
		return fmt.Sprintf("DRIVER_CONFIG_DIGEST changes (%s)", oneline.Few(digest, ", "))
	case len(template) > 0:
		return fmt.Sprintf("only fields outside DRIVER_CONFIG_DIGEST change (%s)", oneline.Few(template, ", "))
	}
	return "the driver DaemonSet's template does not change"
}
