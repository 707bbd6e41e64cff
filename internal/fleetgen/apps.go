package fleetgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteApps writes a repository whose cost is its renders: one local Helm
// chart of templates files (Deployments asking for a GPU, their
// ConfigMaps and Services, in turn) and apps Argo CD Applications of it,
// as an ApplicationSet or an app of apps leaves them: each its own
// release name, namespace and values (the cluster, a replica count). The
// applications are in files of 100 under apps/, the chart under
// charts/app/, in a repository (an empty .git folder: Argo CD's paths are
// the repository's).
func WriteApps(dir string, apps, templates int) error {
	chart := filepath.Join(dir, "charts", "app")
	for _, d := range []string{filepath.Join(chart, "templates"), filepath.Join(dir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		filepath.Join(chart, "Chart.yaml"):  "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		filepath.Join(chart, "values.yaml"): "cluster: default\nreplicas: 1\nimage: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\ngpus: 1\n",
	}
	for i := range templates {
		files[filepath.Join(chart, "templates", fmt.Sprintf("t%02d.yaml", i))] = appTemplate(i)
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "apps"), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for i := range apps {
		fmt.Fprintf(&b, `---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: app-%05d
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://git.example.com/fleet.git
    path: charts/app
    helm:
      releaseName: app-%05d
      valuesObject:
        cluster: cluster-%04d
        replicas: %d
  destination:
    server: https://kubernetes.default.svc
    namespace: team-%02d
`, i, i, i/10, 1+i%3, i%20)
		if i%100 == 99 || i == apps-1 {
			name := filepath.Join(dir, "apps", fmt.Sprintf("apps-%03d.yaml", i/100))
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				return err
			}
			b.Reset()
		}
	}
	return nil
}

// appTemplate is the chart's template i: a GPU Deployment, a ConfigMap or
// a Service, named after the release.
func appTemplate(i int) string {
	switch i % 3 {
	case 0:
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-w%[1]d
  labels: {app: {{ .Release.Name }}-w%[1]d, cluster: {{ .Values.cluster | quote }}}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}-w%[1]d}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}-w%[1]d}
    spec:
      containers:
        - name: main
          image: {{ .Values.image }}
          resources:
            limits: {nvidia.com/gpu: {{ .Values.gpus }}}
`, i)
	case 1:
		return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-c%d
data:
  {{- range $k, $v := .Values }}
  {{ $k }}: {{ $v | toString | quote }}
  {{- end }}
`, i)
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-s%[1]d
spec:
  selector: {app: {{ .Release.Name }}-w%[2]d}
  ports: [{port: 80}]
`, i, i-2)
}
