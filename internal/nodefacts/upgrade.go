package nodefacts

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// driverVersionForm is an NVIDIA driver version: branch.minor[.revision].
var driverVersionForm = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`)

// CheckVersion rejects a value that is not a driver version such as
// 550.90.07.
func CheckVersion(v string) error {
	if !driverVersionForm.MatchString(v) {
		return fmt.Errorf("--driver %q is not a driver version such as 550.90.07", v)
	}
	return nil
}

// DriverLabels are the labels gpu-feature-discovery gives a node that runs
// version, in the generation of keys the node already carries: what the
// node looks like once its driver is upgraded.
func DriverLabels(n *corev1.Node, version string) []string {
	keys := driverKeys[1]
	if _, ok := n.Labels[driverKeys[0].major]; ok {
		keys = driverKeys[0]
	}
	names := []string{keys.major, keys.minor, keys.rev}
	var out []string
	for i, part := range strings.Split(version, ".") {
		out = append(out, names[i]+"="+part)
	}
	return out
}

// Upgraded returns a copy of n relabelled as if it ran version: the facts
// (and the tag) it will have after the upgrade. n is not changed.
func Upgraded(n *corev1.Node, version string) *corev1.Node {
	c := *n
	c.Labels = make(map[string]string, len(n.Labels)+3)
	for k, v := range n.Labels {
		c.Labels[k] = v
	}
	for _, k := range driverKeys {
		delete(c.Labels, k.rev) // a two-part version has no revision
	}
	for _, kv := range DriverLabels(n, version) {
		k, v, _ := strings.Cut(kv, "=")
		c.Labels[k] = v
	}
	return &c
}
