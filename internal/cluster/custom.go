package cluster

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

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
