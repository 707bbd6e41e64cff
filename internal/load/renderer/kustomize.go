package renderer

import (
	"context"
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/internal/sandbox"
)

// kustomizeJob is what the sandbox's kustomize job builds.
type kustomizeJob struct {
	Dir string `json:"dir"`
}

// kustomizeAnswer is a build: each resource as YAML with the file it came
// from, and the bytes the child read.
type kustomizeAnswer struct {
	Resources []Resource `json:"resources"`
	Read      int64      `json:"read"`
}

// Resource is one resource a kustomize build made, and where it came from.
type Resource struct {
	YAML    string `json:"yaml"`
	Kind    string `json:"kind"`
	OrgName string `json:"orgName"` // the name in its file, before prefixes
	Origin  string `json:"origin"`  // its file, relative to the kustomization; "" when generated or remote
}

func init() { sandbox.Register("kustomize", jobFunc(buildInChild)) }

// size is what the build read and made.
func (a *kustomizeAnswer) size() int64 {
	n := a.Read
	for _, r := range a.Resources {
		n += int64(len(r.YAML))
	}
	return n
}

// Kustomize builds the kustomization in dir as kustomize build does, in
// the sandbox (internal/sandbox): no plugin runs, no remote base is
// fetched (either is an error naming it), no URL is read, and nothing out
// of the repository.
func Kustomize(ctx context.Context, r Run, dir string) ([]Resource, error) {
	file := KustomizationIn(r.FS, dir)
	if err := checkLocal(r.FS, dir, map[string]bool{}); err != nil {
		return nil, err
	}
	var answer kustomizeAnswer
	if err := runJob(ctx, file, "kustomize", &kustomizeJob{Dir: dir}, &answer, r); err != nil {
		return nil, err
	}
	return answer.Resources, nil
}

// buildInChild is the kustomize job, in the sandbox.
func buildInChild(job *kustomizeJob, fsys *repofs.FS) (*kustomizeAnswer, error) {
	// kyaml keeps the OpenAPI schema in a global, and an openapi field sets
	// it for the builds that follow in the same child without resetting
	// it after: each build starts from the default schema, as in a child
	// of its own.
	openapi.ResetOpenAPI()
	opt := krusty.MakeDefaultOptions()
	opt.PluginConfig = types.DisabledPluginConfig()
	m, err := krusty.MakeKustomizer(opt).Run(kustFS{fsys}, job.Dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %s", oneline.Error(err))
	}
	answer := &kustomizeAnswer{}
	for _, r := range m.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("kustomize build: %v", err)
		}
		b := Resource{YAML: string(data), Kind: r.GetKind(), OrgName: r.OrgId().Name}
		if org, _ := r.GetOrigin(); org != nil && org.Repo == "" {
			b.Origin = org.Path
		}
		answer.Resources = append(answer.Resources, b)
	}
	answer.Read = fsys.Used()
	return answer, nil
}
