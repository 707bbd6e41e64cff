package inventory

import "github.com/drvcheck/drvcheck/internal/object"

// UseNodes replaces the nodes read from files with those of live, a
// cluster's inventory (check --nodes-from-cluster): the files say what a
// change does, the cluster says which nodes it meets. Node manifests in the
// files are dropped, with their lines, so findings about nodes point at the
// cluster's objects.
func (inv *Inventory) UseNodes(live *Inventory) {
	inv.Objects += len(live.Nodes) - len(inv.Nodes)
	for _, n := range inv.Nodes {
		delete(inv.origins, object.Ref{Kind: "Node", Name: n.Name})
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
