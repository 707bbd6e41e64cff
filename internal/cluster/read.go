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
// parallel, into an inventory marked Live. Kubernetes' own kinds come
// typed; custom resources only when the API serves them (discovery), as
// plain objects decoded as a file's are. With keepRaw every object is also
// kept as a map, as `kubectl get -o json` would print it, for custom rules.
func (c *Client) Read(ctx context.Context, kinds []Kind, keepRaw bool) (*inventory.Inventory, error) {
	if len(kinds) == 0 {
		kinds = AllKinds
	}
	core, custom, err := c.split(kinds)
	if err != nil {
		return nil, err
	}
	core, optional := splitOptional(core)
	lists, err := c.list(ctx, core)
	if err != nil {
		return nil, err
	}
	// Kubernetes' own kinds a cluster may not serve, once the others are
	// read: only those the API serves.
	if optional, err = c.served(ctx, optional); err != nil {
		return nil, err
	}
	optLists, err := c.list(ctx, optional)
	if err != nil {
		return nil, err
	}
	core, lists = append(core, optional...), append(lists, optLists...)
	// Custom resources after Kubernetes' own: only those the API serves.
	custom, err = c.served(ctx, custom)
	if err != nil {
		return nil, err
	}
	customLists, err := c.list(ctx, custom)
	if err != nil {
		return nil, err
	}
	inv := &inventory.Inventory{Live: true}
	for i, k := range core {
		if err := inv.AddTyped(k.entry(), lists[i], keepRaw); err != nil {
			return nil, fmt.Errorf("cluster %s: %s: %v", c.host, k, err)
		}
	}
	for _, list := range customLists {
		for _, o := range list {
			if err := inv.AddLive(o.(runtime.Unstructured).UnstructuredContent(), keepRaw); err != nil {
				return nil, fmt.Errorf("cluster %s: %v", c.host, err)
			}
		}
	}
	if err := c.operatorConfigs(ctx, inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// splitOptional splits Kubernetes' own kinds into those every cluster
// serves and the optional ones.
func splitOptional(kinds []Kind) (required, optional []Kind) {
	for _, k := range kinds {
		if k.entry().Optional {
			optional = append(optional, k)
		} else {
			required = append(required, k)
		}
	}
	return required, optional
}

// split splits kinds into Kubernetes' own and the custom resources; a
// kind given twice is listed once.
func (c *Client) split(kinds []Kind) (core, custom []Kind, err error) {
	seen := map[Kind]bool{}
	for _, k := range kinds {
		e := k.entry()
		if e == nil {
			return nil, nil, fmt.Errorf("cluster: drvcheck does not read %s", k)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		if e.Custom {
			custom = append(custom, k)
		} else {
			core = append(core, k)
		}
	}
	return core, custom, nil
}

// list lists kinds in parallel. The first failing kind in the order given
// is the error, so that the message does not depend on which request
// finished first.
func (c *Client) list(ctx context.Context, kinds []Kind) ([][]runtime.Object, error) {
	out := make([][]runtime.Object, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, k := range kinds {
		wg.Go(func() {
			list, err := c.lister(k)
			if err == nil {
				out[i], err = listAll(ctx, list)
			}
			if err != nil {
				errs[i] = c.explain(err, "list", k)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
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
