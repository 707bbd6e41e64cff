package integrations

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func readWorkflow(t *testing.T, name string) workflow {
	t.Helper()
	var w workflow
	parseFile(t, ".github/workflows/"+name, &w)
	return w
}

// triggers lists the events under on:.
func triggers(t *testing.T, w workflow) map[string]any {
	t.Helper()
	var on map[string]any
	if err := w.On.Decode(&on); err != nil {
		t.Fatalf("on: %v", err)
	}
	return on
}

func runs(steps []step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Run + "\n")
	}
	return b.String()
}

func TestWorkflowCI(t *testing.T) {
	w := readWorkflow(t, "ci.yml")
	on := triggers(t, w)
	if _, ok := on["pull_request"]; !ok {
		t.Errorf("ci.yml does not run on pull requests: %v", on)
	}
	steps := w.Jobs["test"].Steps
	for _, cmd := range []string{"make build", "make lint", "make test", "bin/drvcheck verify"} {
		if !strings.Contains(runs(steps), cmd) {
			t.Errorf("ci.yml does not run %q", cmd)
		}
	}
	if !slices.ContainsFunc(steps, func(s step) bool {
		return strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] == "go.mod"
	}) {
		t.Errorf("ci.yml does not set up Go from go.mod")
	}
}

// action-test.yml runs the action on the lab and asserts its outputs: its
// jobs, run here step by step with the real action, must pass, so the
// assertions and the action agree.
func TestWorkflowActionTest(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is not installed: action-test.yml asserts with it, as GitHub's runners have it; apt-get install jq (bash .ci/run does)")
	}
	w := readWorkflow(t, "action-test.yml")
	if len(w.Jobs) < 2 {
		t.Fatalf("jobs = %v", w.Jobs)
	}
	for name, job := range w.Jobs {
		if !slices.ContainsFunc(job.Steps, func(s step) bool { return s.Uses == "./" }) {
			t.Errorf("job %s does not run the action", name)
		}
		if !strings.Contains(runs(job.Steps), `test "$ERRORS" = `) {
			t.Errorf("job %s asserts no errors output", name)
		}
		r := newRunner(t)
		if !r.job(job.Steps) {
			t.Errorf("job %s failed:\n%s", name, r.log.String())
		}
	}
}

func TestWorkflowNightlyScan(t *testing.T) {
	w := readWorkflow(t, "nightly-scan.yml")
	on := triggers(t, w)
	sched, _ := on["schedule"].([]any)
	if len(sched) != 1 || len(strings.Fields(sched[0].(map[string]any)["cron"].(string))) != 5 {
		t.Errorf("schedule = %v, want one five-field cron", on["schedule"])
	}
	steps := w.Jobs["scan"].Steps
	i := slices.IndexFunc(steps, func(s step) bool { return s.Uses == "./" })
	if i < 0 || steps[i].With["kubeconfig"] != "${{ secrets.DRVCHECK_KUBECONFIG }}" || !steps[i].ContinueOnError {
		t.Fatalf("no drvcheck step with the kubeconfig secret that lets the reports be kept")
	}
	var artifact *step
	for j := range steps {
		if strings.HasPrefix(steps[j].Uses, "actions/upload-artifact@") {
			artifact = &steps[j]
		}
	}
	if artifact == nil || artifact.If != "always()" ||
		!strings.Contains(artifact.With["path"], "steps.drvcheck.outputs.sarif-file") ||
		!strings.Contains(artifact.With["path"], "steps.drvcheck.outputs.markdown-file") {
		t.Errorf("artifact step = %+v", artifact)
	}
	last := steps[len(steps)-1]
	if !strings.Contains(last.Run, `test "$OUTCOME" = success`) || last.Env["OUTCOME"] != "${{ steps.drvcheck.outcome }}" {
		t.Errorf("the last step does not fail the run on errors: %+v", last)
	}

	// Without the secret, the job stops at once with a message, rather than
	// silently checking the repository instead of the cluster.
	r := newRunner(t)
	if r.job(steps[:2]) || !strings.Contains(r.log.String(), "set the repository secret DRVCHECK_KUBECONFIG") {
		t.Errorf("missing secret not reported:\n%s", r.log.String())
	}
}
