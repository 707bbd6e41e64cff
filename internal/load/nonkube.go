package load

import (
	"bytes"
	"errors"
	"io"
	"strings"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// NotKubernetes says why a file that failed to parse as Kubernetes objects
// holds none at all, or "" when it looks like Kubernetes objects and is
// broken. A repository keeps more YAML than manifests: Helm values and
// Chart.yaml, GitHub workflows, docker-compose files, Ansible playbooks,
// kustomizations, Helm templates. It runs only on files that already
// failed, so plain folders pay nothing for it.
func NotKubernetes(data []byte) string {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	kinds := 0
	var reason string
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if bytes.Contains(data, []byte("{{")) {
				return "a template (Helm or Go), not YAML until rendered"
			}
			return ""
		}
		why, isKube := document(&n)
		if isKube {
			kinds++
		}
		if reason == "" {
			reason = why
		}
	}
	if kinds > 0 || reason == "" {
		return ""
	}
	return reason
}

// document says whether one YAML document is shaped as a Kubernetes object
// (a mapping with a kind), and if not, what it is.
func document(n *yaml.Node) (why string, isKube bool) {
	if len(n.Content) == 0 {
		return "", false
	}
	root := n.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return "", false
	}
	if root.Kind != yaml.MappingNode {
		return "not a mapping with apiVersion and kind", false
	}
	keys := map[string]string{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		keys[root.Content[i].Value] = root.Content[i+1].Value
	}
	_, metadata := keys["metadata"]
	_, spec := keys["spec"]
	switch {
	case strings.HasPrefix(keys["apiVersion"], "kustomize.config.k8s.io/"):
		return "a kustomization (read with --no-render, so not built)", false
	// A kind, or metadata beside an apiVersion or a spec, is a Kubernetes
	// object, if a broken one.
	case keys["kind"] != "", metadata && (keys["apiVersion"] != "" || spec):
		return "", true
	}
	return "no kind: not a Kubernetes object", false
}
