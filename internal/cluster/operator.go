package cluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// The GPU Operator's kinds: custom resources, listed when the API serves
// them. A cluster without the operator's CRDs has none, which is no error;
// a refusal is, as for every kind.
var (
	ClusterPolicies = Kind{"clusterpolicies", operator.Group, operator.ClusterPolicyVersion, "ClusterPolicy"}
	NVIDIADrivers   = Kind{"nvidiadrivers", operator.Group, operator.NVIDIADriverVersion, "NVIDIADriver"}
)

// customLister lists a custom resource page by page; a resource the API
// does not serve (its CRD is not installed) lists as empty.
func customLister(dyn dynamic.Interface, k Kind, dst *[]*unstructured.Unstructured) func(context.Context) error {
	res := dyn.Resource(schema.GroupVersionResource{Group: k.Group, Version: k.Version, Resource: k.Resource})
	list := func(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
		l, err := res.List(ctx, opts)
		if apierrors.IsNotFound(err) && opts.Continue == "" {
			return &unstructured.UnstructuredList{}, nil
		}
		return l, err
	}
	return lister(list, func(l *unstructured.UnstructuredList) []unstructured.Unstructured { return l.Items }, dst)
}

// addOperator decodes the operator's objects into inv, as file mode does.
func (b *batch) addOperator(inv *inventory.Inventory, keepRaw bool) error {
	for _, u := range b.clusterPolicies {
		var cp operator.ClusterPolicy
		if err := fromUnstructured(u, &cp); err != nil {
			return err
		}
		inv.ClusterPolicies = append(inv.ClusterPolicies, &cp)
	}
	for _, u := range b.nvidiaDrivers {
		var d operator.NVIDIADriver
		if err := fromUnstructured(u, &d); err != nil {
			return err
		}
		inv.NVIDIADrivers = append(inv.NVIDIADrivers, &d)
	}
	if keepRaw {
		for _, list := range [][]*unstructured.Unstructured{b.clusterPolicies, b.nvidiaDrivers} {
			for _, u := range list {
				inv.AddRaw(u.Object)
			}
		}
	}
	inv.Objects += len(b.clusterPolicies) + len(b.nvidiaDrivers)
	return nil
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return fmt.Errorf("cluster: %s/%s: %v", u.GetKind(), u.GetName(), err)
	}
	return nil
}
