package inventory

import "github.com/drvcheck/drvcheck/internal/object"

// UseNodes replaces the nodes read from files with those of live, a
// cluster's inventory (check --nodes-from-cluster) or a snapshot of it
// (check --nodes): the files say what a change does, live says which nodes
// it meets. Node manifests in the files are dropped, with their lines, so
// findings about nodes point at live's objects (and at its lines, for a
// snapshot).
func (inv *Inventory) UseNodes(live *Inventory) {
	inv.Objects += len(live.Nodes) - len(inv.Nodes)
	for _, n := range inv.Nodes {
		delete(inv.origins, object.Ref{Kind: "Node", Name: n.Name})
	}
	for _, n := range live.Nodes {
		if o := live.origins[object.Ref{Kind: "Node", Name: n.Name}]; o != nil {
			inv.SetOrigin(o)
		}
	}
	inv.Nodes = live.Nodes
	if inv.raw == nil {
		return
	}
	raw := make([]map[string]any, 0, len(inv.raw)+len(live.raw))
	for _, m := range inv.raw {
		if !isNode(m) {
			raw = append(raw, m)
		}
	}
	for _, m := range live.raw {
		if isNode(m) {
			raw = append(raw, m)
		}
	}
	inv.raw = raw
}

func isNode(m map[string]any) bool {
	return m["kind"] == "Node" && m["apiVersion"] == "v1"
}
