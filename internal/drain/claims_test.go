package drain

import (
	"slices"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/drain/draintest"
	"github.com/drvcheck/drvcheck/internal/inventory"
)

// claimPod holds the claim named claim, as the kubelet reports it.
func claimPod(name, claim string) string {
	return strings.Replace(draintest.LivePod(name, "n1", "ReplicaSet/web-5d8f", true), "status:\n", "status:\n  resourceClaimStatuses: [{name: gpu, resourceClaimName: "+claim+"}]\n", 1)
}

// claim is a claim as a cluster lists it (files never give claims).
func claim(t *testing.T, name, driver string, admin bool) *resourcev1.ResourceClaim {
	t.Helper()
	a := "false"
	if admin {
		a = "true"
	}
	var c resourcev1.ResourceClaim
	err := yaml.Unmarshal([]byte(`metadata: {name: `+name+`, namespace: default}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: `+driver+`, pool: p, device: d, adminAccess: `+a+`}]`), &c)
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// GPU-pod deletion takes a pod that holds a gpu.nvidia.com device through
// a claim, as the operator's filter does, and one whose claim it cannot
// read; not one holding another driver's device or admin access.
func TestPodDeletionTakesGPUClaims(t *testing.T) {
	inv, err := inventory.Parse("cluster.yaml", []byte(strings.Join([]string{draintest.LiveControllers,
		claimPod("gpu", "c-gpu"), claimPod("nic", "c-nic"), claimPod("admin", "c-admin"), claimPod("unread", "c-missing"),
		draintest.LivePod("plain", "n1", "ReplicaSet/web-5d8f", true)}, "\n---\n")), false)
	if err != nil {
		t.Fatal(err)
	}
	inv.Live = true
	inv.ResourceClaims = []*resourcev1.ResourceClaim{
		claim(t, "c-gpu", GPUDriver, false), claim(t, "c-nic", "net.example.com", false), claim(t, "c-admin", GPUDriver, true),
	}
	m, err := New(inv, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, evict := Phase{Name: "podDeletion", GPU: true}.Screen("n1", m.PodsOn("n1"))
	if got := Keys(evict); !slices.Equal(got, []string{"default/gpu", "default/unread"}) {
		t.Errorf("GPU-pod deletion takes %v", got)
	}
}
