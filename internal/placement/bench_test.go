package placement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/drain/draintest"
	"github.com/drvcheck/drvcheck/internal/inventory"
)

// bigFleet is 1000 GPU nodes in 4 pools, 400 Deployments of 8 replicas
// (half with hostname anti-affinity) and a budget per Deployment.
func bigFleet(b *testing.B) *inventory.Inventory {
	var docs []string
	for i := range 1000 {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: n%04d, labels: {kubernetes.io/hostname: n%04d, pool: p%d, nvidia.com/gpu.present: \"true\"}}", i, i, i%4))
	}
	for i := range 400 {
		anti := ""
		if i%2 == 0 {
			anti = fmt.Sprintf(`      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: w%d}}`, i)
		}
		docs = append(docs, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: w%d}
spec:
  replicas: 8
  selector: {matchLabels: {app: w%d}}
  template:
    metadata: {labels: {app: w%d}}
    spec:
      nodeSelector: {pool: p%d}
      containers: [{name: c, image: x}]
%s`, i, i, i, i%4, anti))
		docs = append(docs, draintest.PDB(fmt.Sprintf("w%d", i), "default", fmt.Sprintf("minAvailable: %d", 7+i%2), fmt.Sprintf("app: w%d", i)))
	}
	inv, err := inventory.Parse("big.yaml", []byte(strings.Join(docs, "\n---\n")), false)
	if err != nil {
		b.Fatal(err)
	}
	return inv
}

func BenchmarkModelAndRoomOfEveryNode(b *testing.B) {
	inv := bigFleet(b)
	b.ResetTimer()
	for range b.N {
		m, err := New(inv)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range m.Nodes {
			m.NewSim(drain.Flags{}).Room(n.Name)
		}
	}
}
