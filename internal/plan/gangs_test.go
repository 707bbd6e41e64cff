package plan_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// ranks is a PyTorchJob of a Master and a Worker of 8 GPUs each on the
// pool's nodes (kubeflow's NCCL MNIST job, scaled up): a gang of two.
const ranks = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: finetune, namespace: default}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: kubeflow/pytorch-dist-mnist:latest, resources: {limits: {nvidia.com/gpu: 8}}}]
    Worker:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: kubeflow/pytorch-dist-mnist:latest, resources: {limits: {nvidia.com/gpu: 8}}}]`

// gangFleet is GPU nodes g0, g1, … of the GPUs given each, and the gang.
func gangFleet(gpus ...int) (docs []string) {
	for i, n := range gpus {
		docs = append(docs, gpuNode(fmt.Sprintf("g%d", i))+fmt.Sprintf("\nstatus:\n  allocatable: {nvidia.com/gpu: \"%d\", pods: \"110\"}", n))
	}
	return append(docs, ranks)
}

// twoAtATime rolls two nodes at once.
func twoAtATime(p *operator.Policy) { p.MaxParallel, p.MaxUnavailable = 2, "2" }

// The gang fits the two nodes of 8 GPUs. Two at a time in name order,
// round 1 takes the two small nodes out and round 2 the two large ones:
// the gang loses its place in round 2, with those two out, and in the
// reverse order in round 1, so not depending on the order.
func TestRollingGangLosesItsPlaceInTheRoundItsNodesAreOut(t *testing.T) {
	m, after := fleetOfDocs(t, gangFleet(2, 2, 8, 8), row550)
	r, err := plan.Roll(m, after, operatorFlow(twoAtATime))
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(r) != "g0:1:upgraded g1:1:upgraded g2:2:upgraded g3:2:upgraded" {
		t.Fatalf("rounds: %s", outcomes(r))
	}
	if len(r.Displaced) != 1 {
		t.Fatalf("displaced: %+v", r.Displaced)
	}
	d := r.Displaced[0]
	if d.Object != "PyTorchJob/default/finetune" || d.Must != 2 || d.Rounds != 1 || d.OrderDependent || d.First == nil ||
		d.First.Round != 2 || !slices.Equal(d.First.Out, []string{"g2", "g3"}) || d.First.Placed != 0 {
		t.Fatalf("displaced: %+v %+v", d, d.First)
	}
	if !strings.Contains(d.Why, "in round 2 (all), with g2, g3 cordoned, 0 of the 2 GPU pods that must run at once fit") {
		t.Errorf("why: %s", d.Why)
	}
	if r.Severity != "warning" || !strings.Contains(r.Verdict, "1 GPU workload(s) lose their place") {
		t.Errorf("verdict: %s %s", r.Severity, r.Verdict)
	}
}

// The nodes of 8 GPUs are g0, g2 and g4; two at a time takes one of them
// out per round, in name order and in reverse: the gang keeps its place.
// Only an order that takes two large nodes at once breaks it, which the
// rules' DRV029 judges (it needs the ClusterPolicy the files lack here).
func TestRollingGangKeepsItsPlaceWhenNoRoundTakesItsNodes(t *testing.T) {
	m, after := fleetOfDocs(t, gangFleet(8, 2, 8, 2, 8, 2), row550)
	r, err := plan.Roll(m, after, operatorFlow(twoAtATime))
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Gangs) != 1 || len(r.Displaced) != 0 || r.Severity != "" {
		t.Fatalf("%d gangs; displaced %+v; %s %s", len(after.Gangs), r.Displaced, r.Severity, r.Verdict)
	}
	// One at a time in the same fleet: every round leaves two large nodes.
	r, err = plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.MaxParallel, p.MaxUnavailable = 1, "1" }))
	if err != nil || len(r.Displaced) != 0 {
		t.Fatalf("%v %+v", err, r.Displaced)
	}
	// Three at a time: round 1 takes g0, g1 and g2 out, two large ones.
	r, err = plan.Roll(m, after, operatorFlow(func(p *operator.Policy) { p.MaxParallel, p.MaxUnavailable = 3, "3" }))
	if err != nil || len(r.Displaced) != 1 || r.Displaced[0].First.Round != 1 || r.Displaced[0].First.Placed != 1 ||
		!slices.Equal(r.Displaced[0].First.Out, []string{"g0", "g1", "g2"}) {
		t.Fatalf("%v %+v", err, r.Displaced)
	}
}

// unpackable is a gang whose packing is past the run's bound.
type unpackable struct{}

func (unpackable) String() string { return "LeaderWorkerSet/default/huge" }
func (unpackable) MustRun() int   { return 2 }
func (unpackable) Reason() string { return "a test" }
func (unpackable) Placed([]string) (int, []string, bool) {
	return 0, nil, false
}

// A gang that cannot be packed past the bound is no finding, and the
// rollout says from which round on gangs were not judged.
func TestRollingGangsPastTheBound(t *testing.T) {
	m, after := fleetOfDocs(t, gangFleet(2, 2, 8, 8), row550)
	after.Gangs = []plan.Gang{unpackable{}}
	r, err := plan.Roll(m, after, operatorFlow(twoAtATime))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Displaced) != 0 || !strings.Contains(r.GangsUnjudged, "gangs are not judged from round 1 on (LeaderWorkerSet/default/huge)") {
		t.Fatalf("%+v %q", r.Displaced, r.GangsUnjudged)
	}
}
