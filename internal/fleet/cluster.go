package fleet

import (
	"slices"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// Cluster is what a fleet compares of one cluster: the GPU Operator's
// release, the driver its GPU nodes run, and the stacks it declares.
type Cluster struct {
	// Name is --cluster-name (scan: else --context); report merge names
	// a result without one by its file.
	Name string `json:"name"`
	// OperatorVersion is the release the inputs name; empty when none
	// does (an assumed release says nothing of the cluster).
	OperatorVersion string `json:"operator_version"`
	// DriverBranches are the branches the GPU nodes' driver labels say
	// they run, and DriverVersions how many GPU nodes run each version.
	DriverBranches []string       `json:"driver_branches"`
	DriverVersions map[string]int `json:"driver_versions"`
	// Stacks are the operator's stacks the inputs declare: ClusterPolicy
	// (device plugin) and GPUCluster (DRA).
	Stacks   []string `json:"stacks"`
	GPUNodes int      `json:"gpu_nodes"`
	// Labels are the run's --cluster-label; Group is the value of the one
	// report merge --group-by names: DRV050 compares the clusters of one
	// group alone.
	Labels map[string]string `json:"labels,omitempty"`
	Group  string            `json:"group,omitempty"`
}

// Of is the cluster a run read: its node facts and operator profile (nil
// without one).
func Of(name string, facts *nodefacts.Set, p *operator.Profile) Cluster {
	c := Cluster{Name: name, DriverBranches: []string{}, DriverVersions: map[string]int{}, Stacks: []string{}}
	if facts != nil {
		for _, f := range facts.List() {
			if !f.GPU {
				continue
			}
			c.GPUNodes++
			if f.DriverVersion != "" {
				c.DriverVersions[f.DriverVersion]++
			}
			if f.Branch != "" && !slices.Contains(c.DriverBranches, f.Branch) {
				c.DriverBranches = append(c.DriverBranches, f.Branch)
			}
		}
	}
	slices.Sort(c.DriverBranches)
	if p == nil {
		return c
	}
	if p.VersionKnown() {
		c.OperatorVersion = p.Version.String()
	}
	if p.ClusterPolicy != nil {
		c.Stacks = append(c.Stacks, "ClusterPolicy")
	}
	if len(p.GPUClusters) > 0 {
		c.Stacks = append(c.Stacks, "GPUCluster")
	}
	return c
}
