package cluster

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/drvcheck/drvcheck/internal/inventory"
)

// Read lists every object of kinds (AllKinds when empty), the kinds in
// parallel, into an inventory marked Live. With keepRaw every object is also
// kept as a map, as `kubectl get -o json` would print it, for custom rules.
func (c *Client) Read(ctx context.Context, kinds []Kind, keepRaw bool) (*inventory.Inventory, error) {
	workloads := len(kinds) == 0 // every kind: the GPU workload custom resources too
	if workloads {
		kinds = AllKinds
	}
	var b batch
	ls := listers(c.cs, c.dyn, &b)
	core, custom := splitCustom(kinds)
	if err := c.list(ctx, core, ls); err != nil {
		return nil, err
	}
	// Custom resources after Kubernetes' own: only those the API serves.
	custom, err := c.served(ctx, custom)
	if err == nil {
		err = c.list(ctx, custom, ls)
	}
	if err != nil {
		return nil, err
	}
	inv, err := b.inventory(keepRaw)
	if err != nil || !workloads {
		return inv, err
	}
	if err := c.readWorkloads(ctx, inv, keepRaw); err != nil {
		return nil, err
	}
	return inv, nil
}

// list lists kinds in parallel with ls. The first failing kind in the
// order given is the error, so that the message does not depend on which
// request finished first.
func (c *Client) list(ctx context.Context, kinds []Kind, ls map[Kind]func(context.Context) error) error {
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	seen := map[Kind]bool{}
	for i, k := range kinds {
		list, ok := ls[k]
		if !ok {
			return fmt.Errorf("cluster: drvcheck does not read %s", k)
		}
		if seen[k] {
			continue // a kind given twice is listed once
		}
		seen[k] = true
		wg.Go(func() {
			if err := list(ctx); err != nil {
				errs[i] = c.explain(err, "list", k)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Node gets one node by name.
func (c *Client) Node(ctx context.Context, name string) (*corev1.Node, error) {
	n, err := c.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("node %s not found in cluster %s", name, c.host)
	}
	if err != nil {
		return nil, c.explain(err, "get", Nodes)
	}
	return n, nil
}

// inventory assembles the batch. Objects keep the API server's order (by
// namespace, then name).
func (b *batch) inventory(keepRaw bool) (*inventory.Inventory, error) {
	inv := &inventory.Inventory{
		Nodes: b.nodes, Pods: b.pods, Namespaces: b.namespaces, PDBs: b.pdbs,
		Deployments: b.deployments, ReplicaSets: b.replicaSets, StatefulSets: b.statefulSets,
		DaemonSets: b.daemonSets, Jobs: b.jobs, CronJobs: b.cronJobs,
		Live: true,
	}
	inv.Objects = len(b.nodes) + len(b.pods) + len(b.namespaces) + len(b.pdbs) + len(b.deployments) +
		len(b.replicaSets) + len(b.statefulSets) + len(b.daemonSets) + len(b.jobs) + len(b.cronJobs)
	if err := b.addOperator(inv, keepRaw); err != nil {
		return nil, err
	}
	if !keepRaw {
		return inv, nil
	}
	for _, add := range []func() error{
		func() error { return addRaw(inv, Nodes, b.nodes) },
		func() error { return addRaw(inv, Pods, b.pods) },
		func() error { return addRaw(inv, PDBs, b.pdbs) },
		func() error { return addRaw(inv, Deployments, b.deployments) },
		func() error { return addRaw(inv, ReplicaSets, b.replicaSets) },
		func() error { return addRaw(inv, StatefulSets, b.statefulSets) },
		func() error { return addRaw(inv, DaemonSets, b.daemonSets) },
		func() error { return addRaw(inv, Jobs, b.jobs) },
		func() error { return addRaw(inv, CronJobs, b.cronJobs) },
		func() error { return addRaw(inv, Namespaces, b.namespaces) },
	} {
		if err := add(); err != nil {
			return nil, err
		}
	}
	return inv, nil
}

// addRaw adds each object as a map with its apiVersion and kind, which list
// items lack once decoded.
func addRaw[T any](inv *inventory.Inventory, k Kind, objs []*T) error {
	for _, o := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return fmt.Errorf("cluster: %s: %v", k, err)
		}
		m["apiVersion"], m["kind"] = k.APIVersion(), k.ObjectKind
		inv.AddRaw(m)
	}
	return nil
}
