package operator

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// The gpu-operator chart writes values into its ClusterPolicy and
// NVIDIADriver as text, so the objects the operator reads hold the types
// the template makes, not the ones the values file wrote. Installers
// commonly write `driver: {version: 590}` unquoted; the chart's
// templates/nvidiadriver.yaml writes `version: {{ .Values.driver.version |
// quote }}` (NVIDIA/gpu-operator commit "quote driver version so that its
// not considered integer/float"), and templates/clusterpolicy.yaml writes
// `repository`, `image` and `version` and the booleans `enabled` and
// `usePrecompiled` as `{{ .Values.driver.X }}`, which YAML reads back
// from their text. chartTyped does to a values file what those templates
// do, before it is decoded into the types drvcheck reads.

// quoted are the values the templates write as strings.
var quoted = [][]string{{"driver", "version"}, {"driver", "repository"}, {"driver", "image"}, {"operator", "version"},
	{"driver", "manager", "version"}, {"gds", "version"}, {"gdrcopy", "version"}}

// reread are the values the templates write unquoted, which YAML reads
// back from their text: "true" becomes true.
var reread = [][]string{{"driver", "enabled"}, {"driver", "usePrecompiled"}, {"driver", "useNvidiaDriverCRD"},
	{"driver", "nvidiaDriverCRD", "enabled"}, {"driver", "nvidiaDriverCRD", "deployDefaultCR"},
	{"driver", "rdma", "enabled"}, {"gds", "enabled"}, {"gdrcopy", "enabled"}}

// chartTyped types the values m as the chart's templates do. A value the
// templates could not write as a scalar (a list where a version goes) is
// an error naming its key, as helm install would fail on it.
func chartTyped(m map[string]any) error {
	for _, path := range quoted {
		if err := retype(m, path, func(s string) any { return s }); err != nil {
			return err
		}
	}
	for _, path := range reread {
		err := retype(m, path, func(s string) any {
			var v any
			if yaml.Unmarshal([]byte(s), &v) != nil {
				return s
			}
			return v
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// retype replaces the scalar at path in m by as(its text), the text Go's
// templates print for it (590 for the number 590, as Helm reads numbers
// into float64 and prints them with %v).
func retype(m map[string]any, path []string, as func(string) any) error {
	parent := m
	for _, k := range path[:len(path)-1] {
		next, ok := parent[k].(map[string]any)
		if !ok {
			return nil
		}
		parent = next
	}
	key := path[len(path)-1]
	switch v := parent[key].(type) {
	case nil:
	case string, bool, float64, int64, int:
		parent[key] = as(fmt.Sprint(v))
	default:
		return fmt.Errorf("%s: want a scalar such as 550 or a string, not %T", strings.Join(path, "."), v)
	}
	return nil
}
