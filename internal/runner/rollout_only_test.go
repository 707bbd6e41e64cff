package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/fleetgen"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/policy"
)

// plan --all evaluates only the rules whose findings the rollout reads
// (Config.RolloutOnly): its rollout must be the one every rule gives, on
// the repository's fleets (the lab's missing images, gangs that a window
// breaks) and on every shape of the generated fleet, at two
// window sizes. The runs must also meet what the subset is about: an
// image finding, a DRV029 finding, and findings of other rules that the
// subset leaves out.
func TestRolloutOnlyRollsAlike(t *testing.T) {
	type fleet struct {
		name   string
		paths  []string
		matrix string
	}
	req := func(f string) string { return filepath.Join("../../testdata/gpu-requests", f) }
	fleets := []fleet{
		{"lab", []string{"../../testdata/lab"}, "../../testdata/lab/support-matrix.csv"},
		{"gitops", []string{"../../testdata/gitops"}, ""},
		{"scheduling", []string{"../../testdata/scheduling"}, ""},
		{"a LeaderWorkerSet that fills its pool", []string{req("lws-vllm.yaml"), req("lws-vllm-room.yaml"), req("clusterpolicy-rollout.yaml")}, ""},
		// DRV029 warns of a gang that neither order of the simulation meets
		// (TestPlanAllNamesTheRoundAGangLosesItsPlace): plan --all reads it.
		{"a gang split across rounds", []string{req("gang-rounds-split.yaml")}, req("driver-580.95.05.csv")},
	}
	for _, shape := range fleetgen.Shapes {
		dir := t.TempDir()
		matrix, err := fleetgen.Write(dir, shape.Scaled(10))
		if err != nil {
			t.Fatal(err)
		}
		fleets = append(fleets, fleet{shape.Name, []string{filepath.Join(dir, "k8s")}, matrix})
	}
	met := map[string]bool{}
	for _, f := range fleets {
		for _, w := range []operator.PolicyFlags{{MaxUnavailable: ptr("25%")}, {MaxParallel: ptr(1), MaxUnavailable: ptr("1")}} {
			cfg := Config{Paths: f.paths}
			if f.matrix != "" {
				cfg.Registry = config.Registry{Matrix: []string{f.matrix}}
			}
			all, every := rollout(t, cfg, w)
			cfg.RolloutOnly = true
			only, some := rollout(t, cfg, w)
			if !reflect.DeepEqual(only, all) {
				t.Errorf("%s, window %s: the rollout from the rollout's rules differs from the one from every rule", f.name, *w.MaxUnavailable)
			}
			if len(all.Nodes) == 0 {
				t.Errorf("%s: no node rolls: the comparison proves nothing", f.name)
			}
			for _, x := range some {
				if !ruleOf(t, x.Rule).Rollout {
					t.Errorf("%s: %s is not a rule the rollout reads, yet it was evaluated", f.name, x.Rule)
				}
			}
			for _, x := range every {
				met["image"] = met["image"] || x.Image != ""
				met[x.Rule] = true
				met["other"] = met["other"] || !ruleOf(t, x.Rule).Rollout
			}
		}
	}
	for _, want := range []string{"image", "DRV029", "other"} {
		if !met[want] {
			t.Errorf("no fleet gave a finding of %s: the rollouts compared do not show that the subset suffices", want)
		}
	}
}

// rollout is plan --all's rollout of cfg's fleet to 580.95.05 under the
// window w, and the findings the run evaluated.
func rollout(t *testing.T, cfg Config, w operator.PolicyFlags) (*plan.Rolling, []policy.Finding) {
	t.Helper()
	m, res, err := UpgradeFacts(context.Background(), cfg, Files(context.Background(), cfg), "", "580.95.05")
	if err != nil {
		t.Fatal(err)
	}
	opt := plan.RollingOptions{Options: plan.Options{Driver: "580.95.05"}}
	if opt.Policy, err = operator.Policies(res.Profile, w); err != nil {
		t.Fatal(err)
	}
	r, err := Roll(context.Background(), m, AfterOf(res), opt)
	if err != nil {
		t.Fatal(err)
	}
	return r, AllFindings(res)
}

// builtinRules are the built-in rules by ID, compiled once.
var builtinRules = sync.OnceValues(func() (map[string]policy.Rule, error) {
	e, err := policy.New(context.Background(), policy.Options{})
	if err != nil {
		return nil, err
	}
	out := map[string]policy.Rule{}
	for _, r := range e.Rules() {
		out[r.ID] = r
	}
	return out, nil
})

func ruleOf(t *testing.T, id string) policy.Rule {
	t.Helper()
	rules, err := builtinRules()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rules[id]
	if !ok {
		t.Fatalf("a finding of %s, which is no built-in rule", id)
	}
	return r
}

func ptr[T any](v T) *T { return &v }

// A rule of the user's (--policy) may say a node's image is missing, with
// no meta at all: plan --all evaluates it, and the node stalls there.
func TestRolloutOnlyKeepsTheUsersRules(t *testing.T) {
	dir := t.TempDir()
	matrix, err := fleetgen.Write(dir, fleetgen.Shapes[0].Scaled(100))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Paths: []string{filepath.Join(dir, "k8s")}, Registry: config.Registry{Matrix: []string{matrix}}, RolloutOnly: true}
	w := operator.PolicyFlags{MaxUnavailable: ptr("25%")}
	before, _ := rollout(t, cfg, w)
	node := ""
	for _, o := range before.Nodes {
		if o.Outcome == plan.Upgraded {
			node = o.Node
			break
		}
	}
	if node == "" {
		t.Fatal("no node upgrades: nothing for the user's rule to stop")
	}
	rules := t.TempDir()
	rule := `package drvcheck.rules.acme
findings contains f if {
	some n in input.nodes
	n.name == "` + node + `"
	f := {"rule": "ACME001", "title": "mirror", "severity": "error", "object": n.object, "node": n.name,
		"message": "the mirror lacks this node's driver image", "image": "missing"}
}
`
	if err := os.WriteFile(filepath.Join(rules, "acme.rego"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Policy = []string{rules}
	after, _ := rollout(t, cfg, w)
	for _, o := range after.Nodes {
		if o.Node != node {
			continue
		}
		if o.Outcome != plan.Stuck || len(o.Why) == 0 || o.Why[0].What != "the mirror lacks this node's driver image" {
			t.Errorf("%s with the user's rule: %s, %+v; want stuck on its image", node, o.Outcome, o.Why)
		}
		return
	}
	t.Errorf("%s is not in the rollout with the user's rule", node)
}
