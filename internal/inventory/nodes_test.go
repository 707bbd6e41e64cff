package inventory

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/object"
)

// TestUseNodes is check --nodes-from-cluster: the files' nodes give way to
// the cluster's, everything else stays as read.
func TestUseNodes(t *testing.T) {
	inv, err := Read(context.Background(), []string{"../../testdata/lab/k8s"}, load.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	filesNodes, objects, raw, pods := len(inv.Nodes), inv.Objects, len(inv.Raw()), len(inv.Pods)
	if filesNodes != 4 {
		t.Fatalf("the lab has 4 node manifests, read %d", filesNodes)
	}
	live := &Inventory{Live: true, Nodes: []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "live-0"}}}}
	live.AddRaw(map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "live-0"}})
	live.AddRaw(map[string]any{"apiVersion": "v1", "kind": "Pod"}) // not a node: not taken

	inv.UseNodes(live)
	if len(inv.Nodes) != 1 || inv.Nodes[0].Name != "live-0" {
		t.Errorf("nodes after UseNodes: %v", inv.Nodes)
	}
	if inv.Objects != objects-filesNodes+1 {
		t.Errorf("Objects = %d, want %d", inv.Objects, objects-filesNodes+1)
	}
	if len(inv.Raw()) != raw-filesNodes+1 {
		t.Errorf("raw objects = %d, want %d", len(inv.Raw()), raw-filesNodes+1)
	}
	if len(inv.Pods) != pods || inv.Live {
		t.Errorf("pods %d (want %d), Live %v (want false: the workloads are the files')", len(inv.Pods), pods, inv.Live)
	}
	if o := inv.Origin(object.Ref{Kind: "Node", Name: "lab-node-3"}); o != nil {
		t.Errorf("lab-node-3 still placed at %s:%d", o.Source.Name, o.Line)
	}
	if o := inv.Origin(object.Ref{Kind: "Pod", Namespace: "gpu-drv", Name: "cuda12-job"}); o == nil {
		t.Error("cuda12-job lost its file")
	}
}
