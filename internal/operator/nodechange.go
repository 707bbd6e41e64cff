package operator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// NodeChange is what a change does to one node's driver pod.
type NodeChange struct {
	Node  string `json:"node"`
	Scope string `json:"scope"`
	Kind  string `json:"kind"`
	Why   string `json:"why"`
}

// NodeChanges says, for each managed GPU node of head, what the change
// from base does to its driver pod: its scope's change, or a full rollout
// when its own image changes where its scope's fields do not (the OS tag
// or a precompiled kernel as the operator's version writes them) or it
// moves to another driver, and no-op for a node that had no driver pod to
// change (it joins, or was not managed).
func NodeChanges(scopes []ScopeChange, base, head *nodefacts.Set) []NodeChange {
	byOwner := map[string]ScopeChange{}
	for _, s := range scopes {
		byOwner[s.Owner] = s
	}
	var out []NodeChange
	for _, h := range head.List() {
		if !h.GPU || !h.Image.Managed || h.Image.Owner == "" {
			continue
		}
		c := NodeChange{Node: h.Name, Scope: h.Image.Owner}
		b, ok := base.Get(h.Name)
		sc := byOwner[h.Image.Owner]
		switch {
		case !ok || !b.GPU || !b.Image.Managed:
			c.Kind, c.Why = NoOp, "gets its first driver pod: nothing to upgrade"
		case b.Image.Owner != h.Image.Owner:
			c.Kind, c.Why = FullRollout, fmt.Sprintf("moves from %s to %s: its driver pod is replaced by another DaemonSet's", b.Image.Owner, h.Image.Owner)
		case sc.Kind != FullRollout && b.Image.Ref != h.Image.Ref:
			c.Kind, c.Why = FullRollout, fmt.Sprintf("its driver image changes: %s → %s", b.Image.Ref, h.Image.Ref)
		case sc.Kind != FullRollout && !slices.Equal(auxRefs(b), auxRefs(h)):
			c.Kind, c.Why = FullRollout, fmt.Sprintf("its driver pod's other images change: %v → %v", auxRefs(b), auxRefs(h))
		default:
			c.Kind, c.Why = sc.Kind, sc.summary()
		}
		out = append(out, c)
	}
	return out
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
		return fmt.Sprintf("DRIVER_CONFIG_DIGEST changes (%s)", few(digest))
	case len(template) > 0:
		return fmt.Sprintf("only fields outside DRIVER_CONFIG_DIGEST change (%s)", few(template))
	}
	return "the driver DaemonSet's template does not change"
}

func few(list []string) string {
	if len(list) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(list[:3], ", "), len(list)-3)
	}
	return strings.Join(list, ", ")
}
