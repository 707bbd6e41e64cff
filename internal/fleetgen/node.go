package fleetgen

import "fmt"

// GPUNode is the smallest manifest of a GPU node whose precompiled driver
// image tag is <branch>-<kernel>-ubuntu<osVersion>, labelled as the older
// gpu-feature-discovery and node-feature-discovery label it.
func GPUNode(name, branch, kernel, osVersion string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %s
  labels:
    nvidia.com/gpu.present: "true"
    nvidia.com/cuda.driver.major: "%s"
    feature.node.kubernetes.io/kernel-version.full: %s
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "%s"
`, name, branch, kernel, osVersion)
}
