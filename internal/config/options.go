package config

import (
	"time"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/registry"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// The options of drvcheck, one struct per concern. Each field is spelled
// once: its json name is both the flag (--matrix) and the key of the config
// file (matrix:), and the runner and the commands take the struct itself.
// usage is the flag's help; path marks values that are file paths, which a
// config file gives relative to its own folder; short is a one-letter flag.
// trust says what a repository's config may not do (trust.go): "cli" keys
// only the command line or a trusted config sets (where results go, what
// is trusted, credentials), "bound" keys a repository may tighten, not
// loosen.

// Loading is how manifests are read.
type Loading struct {
	Ignore        []string `json:"ignore" usage:"glob of paths to skip when walking folders; repeatable"`
	MaxFileSize   Bytes    `json:"max-file-size" trust:"bound" usage:"the most one input file (or stdin) may hold, e.g. 512Mi"`
	MaxInputSize  Bytes    `json:"max-input-size" trust:"bound" usage:"the most all inputs together may hold, e.g. 2Gi"`
	NoRender      bool     `json:"no-render" usage:"walk a folder with a kustomization.yaml or a Helm Chart.yaml file by file instead of building or rendering it"`
	HelmValues    []string `json:"helm-values" path:"" usage:"values file every Helm chart is rendered with, over its values.yaml, or CHART=FILE for the chart named CHART (in Chart.yaml, or its folder) only; repeatable"`
	HelmSet       []string `json:"helm-set" usage:"KEY=VALUE every Helm chart is rendered with, as helm --set; repeatable"`
	Strict        bool     `json:"strict" usage:"fail on a file that holds no Kubernetes object (a workflow, a playbook, Helm values or templates outside a chart) instead of skipping it"`
	RenderTimeout Duration `json:"render-timeout" trust:"bound" usage:"the longest one Helm chart's rendering or one kustomization's build may take, e.g. 20s"`
}

// Registry is where the driver image tags that exist are listed, and how
// registries are reached.
type Registry struct {
	Matrix   []string `json:"matrix" path:"" usage:"support-matrix CSV (header driver_branch,kernel,os_tag); repeatable"`
	Registry []string `json:"registry" usage:"image repository whose tags exist, e.g. nvcr.io/nvidia/driver; repeatable"`
	CA       []string `json:"registry-ca" path:"" trust:"cli" usage:"PEM file of a CA to trust for registries; repeatable"`
	Insecure []string `json:"insecure-registry" trust:"cli" usage:"registry HOST or HOST:PORT reached over plain HTTP; repeatable (loopback needs none)"`
	Timeout  Duration `json:"registry-timeout" trust:"bound" usage:"timeout of each registry request"`
	CacheDir string   `json:"cache-dir" path:"" trust:"cli" usage:"folder caching registry listings"`
	CacheTTL Duration `json:"cache-ttl" usage:"how long a cached listing is used without asking the registry (0: always ask)"`
	Offline  bool     `json:"offline" usage:"send no request: registry tags from the cache only (exit 2 when not cached)"`
}

// Configured reports whether any source of existing tags is given.
func (r *Registry) Configured() bool { return len(r.Matrix) > 0 || len(r.Registry) > 0 }

// Rules are the user's additions to the built-in rules and how facts are
// gathered for them.
type Rules struct {
	Policy     []string `json:"policy" path:"" usage:"folder or .rego file of extra rules; repeatable"`
	Data       []string `json:"data" path:"" usage:"JSON or YAML data for the rules; repeatable"`
	CUDACompat string   `json:"cuda-compat" usage:"driver floor of a CUDA image: minor (the major's minor-version compatibility floor) or strict (the toolkit's own minimum driver)"`
	AllowNet   []string `json:"allow-net" trust:"cli" usage:"HOST that rules may reach with http.send or net.lookup_ip_addr (none by default); repeatable"`
}

// Run bounds a whole run, of every command: a named pipe that is never
// closed, a report written to a pipe nobody reads or a cluster that
// answers slowly must not hold a CI job until its own timeout.
type Run struct {
	Deadline Duration `json:"timeout" trust:"bound" usage:"the longest a run may take: reading, rendering, evaluating the rules and writing the reports, e.g. 2m; 0 waits forever"`
}

// DefaultDeadline is --timeout's default: the target fleet takes seconds.
const DefaultDeadline = 2 * time.Minute

// Operator is how the GPU Operator deploys drivers, when the objects read
// do not say it (or to override what they say): the operator profile of
// internal/operator. Without any of it and without operator objects, the
// image tag comes from each node's labels, as in the lab.
type Operator struct {
	DriverVersion    string `json:"driver-version" usage:"the driver version the GPU Operator deploys (its spec.driver.version): a branch (550) when precompiled, else a version (550.90.07)"`
	Precompiled      bool   `json:"precompiled" usage:"the GPU Operator deploys precompiled drivers (usePrecompiled: true)"`
	DriverRepository string `json:"driver-repository" usage:"repository/image of the driver images, e.g. registry.corp/nvidia/driver (default nvcr.io/nvidia/driver)"`
	DriverImage      string `json:"driver-image" usage:"the whole driver image the GPU Operator takes when its ClusterPolicy sets none of repository, image and version (its DRIVER_IMAGE environment, as OLM installs it), e.g. nvcr.io/nvidia/driver:550.90.07"`
	OperatorVersion  string `json:"operator-version" usage:"the GPU Operator release, e.g. v26.7.0, whose OS tag rules apply (default: the operator Deployment's image tag, else the newest drvcheck knows)"`
	OperatorValues   string `json:"operator-values" path:"" usage:"the gpu-operator chart's values file, read for driver.* and operator.version"`
}

// Cluster is the live cluster to read, found as kubectl finds it.
type Cluster struct {
	Kubeconfig     string   `json:"kubeconfig" path:"" trust:"cli" usage:"kubeconfig file (default $KUBECONFIG, then ~/.kube/config, then the in-cluster config of a Pod)"`
	Contexts       Repeated `json:"context" trust:"cli" usage:"kubeconfig context to use (default the current context); scan takes it once per cluster to read several, one report for all"`
	RequestTimeout Duration `json:"request-timeout" trust:"bound" usage:"longest wait for one API request, e.g. 30s; 0 waits forever"`
}

// Output is how findings are printed and when they fail the run.
type Output struct {
	Output string `json:"output" short:"o" usage:"output format: text, json, sarif, github, junit, markdown, prometheus or html"`
	FailOn string `json:"fail-on" usage:"lowest severity that exits 1: error, warning or none"`
}

// Reports are the extra reports of check and scan.
type Reports struct {
	Report      []string `json:"report" path:"" trust:"cli" usage:"also write the report in FORMAT to FILE (FORMAT=FILE, e.g. sarif=drvcheck.sarif, prometheus=drvcheck.prom), or to a ConfigMap of the cluster (configmap=NS/NAME, the one write drvcheck makes); repeatable"`
	Pushgateway string   `json:"pushgateway" trust:"cli" usage:"also push the metrics (the prometheus format) to the Pushgateway at URL, as job drvcheck"`
	ClusterName string   `json:"cluster-name" usage:"the cluster's name in the report (-o json's cluster.name), which report merge tags the cluster's findings with; scan's default is --context"`
	// ClusterLabels say which fleet a cluster belongs to (env=prod,
	// region=eu): report merge --group-by judges skew within each.
	ClusterLabels []string `json:"cluster-label" usage:"a label of the cluster in the report (KEY=VALUE, -o json's cluster.labels), which report merge --group-by KEY groups clusters into fleets by; repeatable"`
	// A repository's config may not set it: a pull request would then
	// mark its own findings as existing.
	Baseline string `json:"baseline" path:"" trust:"cli" usage:"a previous report of the same check (-o json): the findings it holds, by rule, object and node, are marked existing, and --fail-on counts only the new ones"`
}

// Inputs are check's choices of what stands for the cluster and how staged
// files are read. A repository may set them: they name its own files.
type Inputs struct {
	Nodes      []string `json:"nodes" path:"" usage:"take the nodes from FILE (drvcheck snapshot nodes writes it) and everything else from PATH; repeatable"`
	AsRendered bool     `json:"as-rendered" usage:"check a file inside a Helm chart or a kustomization as part of it: the nearest folder above it with a Chart.yaml or kustomization.yaml is checked in its place (what pre-commit hooks pass: a staged values.yaml or template)"`
}

// DefaultRenderTimeout bounds one render: a chart renders in well under a
// second, and a template that loops without end ends the run within half
// a minute.
const DefaultRenderTimeout = 20 * time.Second

// ConfigMapReport is the --report destination that is a cluster's
// ConfigMap, not a file.
const ConfigMapReport = "configmap"

// Defaults are the options' defaults, before flags and the config file.
func Defaults() (Loading, Registry, Rules, Cluster, Output) {
	return Loading{MaxFileSize: repofs.DefaultMaxFile, MaxInputSize: repofs.DefaultMaxTotal, RenderTimeout: Duration(DefaultRenderTimeout)},
		Registry{Timeout: Duration(registry.DefaultTimeout), CacheDir: registry.DefaultCacheDir(), CacheTTL: Duration(registry.DefaultCacheTTL)},
		Rules{CUDACompat: "minor"},
		Cluster{RequestTimeout: Duration(cluster.DefaultTimeout)},
		Output{Output: "text", FailOn: "error"}
}

// every lists a value of each options struct, for the keys a config file
// may hold.
var every = []any{&Run{}, &Loading{}, &Registry{}, &Rules{}, &Operator{}, &Cluster{}, &Output{}, &Reports{}, &Inputs{}}
