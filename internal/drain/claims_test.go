package drain

import (
	"slices"
	"strings"
	"testing"
)

// claimPod holds the claim named claim, as the kubelet reports it.
func claimPod(name, claim string) string {
	return strings.Replace(livePod(name, "n1", "ReplicaSet/web-5d8f", true), "status:\n", "status:\n  resourceClaimStatuses: [{name: gpu, resourceClaimName: "+claim+"}]\n", 1)
}

func claim(name, driver string, admin bool) string {
	a := "false"
	if admin {
		a = "true"
	}
	return `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ` + name + `}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: ` + driver + `, pool: p, device: d, adminAccess: ` + a + `}]`
}

// GPU-pod deletion takes a pod that holds a gpu.nvidia.com device through
// a claim, as the operator's filter does, and one whose claim it cannot
// read; not one holding another driver's device or admin access.
func TestPodDeletionTakesGPUClaims(t *testing.T) {
	m := liveModel(t, liveControllers,
		claimPod("gpu", "c-gpu"), claim("c-gpu", GPUDriver, false),
		claimPod("nic", "c-nic"), claim("c-nic", "net.example.com", false),
		claimPod("admin", "c-admin"), claim("c-admin", GPUDriver, true),
		claimPod("unread", "c-missing"),
		livePod("plain", "n1", "ReplicaSet/web-5d8f", true))
	_, evict := Phase{Name: "podDeletion", GPU: true}.Screen("n1", m.PodsOn("n1"))
	if got := Keys(evict); !slices.Equal(got, []string{"default/gpu", "default/unread"}) {
		t.Errorf("GPU-pod deletion takes %v", got)
	}
}
