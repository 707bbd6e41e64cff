package cluster

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/drvcheck/drvcheck/internal/inventory"
)

// WorkloadKinds are the GPU workload custom resources (inventory's
// CustomKinds), listed at the version the API server prefers, when it
// serves them: a cluster without KubeRay has no RayClusters, which is no
// error; a refusal is.
func WorkloadKinds() []Kind {
	out := make([]Kind, 0, len(inventory.CustomKinds))
	for _, k := range inventory.CustomKinds {
		out = append(out, Kind{Resource: k.Resource, Group: k.Group, ObjectKind: k.Kind})
	}
	return out
}

// served finds, through discovery, the version each group is served at
// (its preferred one) and whether it has resource; groups not served are
// left out. A discovery that fails is an error like any request.
func (c *Client) served(ctx context.Context, kinds []Kind) ([]Kind, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	preferred, err := c.preferredVersions()
	if err != nil {
		return nil, err
	}
	var out []Kind
	resources := map[string]map[string]bool{}
	for _, k := range kinds {
		v, ok := preferred[k.Group]
		if k.Version != "" {
			v = k.Version
		}
		if !ok {
			continue
		}
		gv := k.Group + "/" + v
		if resources[gv] == nil {
			resources[gv] = map[string]bool{}
			list, err := c.cs.Discovery().ServerResourcesForGroupVersion(gv)
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, c.explain(err, "discover", k)
			}
			if list != nil {
				for _, r := range list.APIResources {
					resources[gv][r.Name] = true
				}
			}
		}
		if resources[gv][k.Resource] {
			k.Version = v
			out = append(out, k)
		}
	}
	return out, ctx.Err()
}

// readWorkloads lists every served GPU workload kind into inv.
func (c *Client) readWorkloads(ctx context.Context, inv *inventory.Inventory, keepRaw bool) error {
	kinds, err := c.served(ctx, WorkloadKinds())
	if err != nil {
		return err
	}
	lists := make([][]*unstructured.Unstructured, len(kinds))
	ls := map[Kind]func(context.Context) error{}
	for i, k := range kinds {
		ls[k] = customLister(c.dyn, k, &lists[i])
	}
	if err := c.list(ctx, kinds, ls); err != nil {
		return err
	}
	for _, list := range lists {
		for _, u := range list {
			if err := inv.AddLiveCustom(u.Object, keepRaw); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitCustom splits kinds into Kubernetes' own and the custom resources
// (the GPU Operator's), which are listed only when the API serves them:
// without their CRDs there is nothing to read and no permission to ask for.
func splitCustom(kinds []Kind) (core, custom []Kind) {
	for _, k := range kinds {
		if k == ClusterPolicies || k == NVIDIADrivers {
			custom = append(custom, k)
		} else {
			core = append(core, k)
		}
	}
	return core, custom
}

// preferredVersions maps each API group the server serves to its
// preferred version, asked once per client.
func (c *Client) preferredVersions() (map[string]string, error) {
	c.discovery.Do(func() {
		groups, err := c.cs.Discovery().ServerGroups()
		if err != nil {
			c.discoveryErr = c.explain(err, "discover", Kind{Resource: "apigroups"})
			return
		}
		c.preferred = map[string]string{}
		for _, g := range groups.Groups {
			c.preferred[g.Name] = g.PreferredVersion.Version
		}
	})
	return c.preferred, c.discoveryErr
}
