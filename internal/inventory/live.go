package inventory

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/drvcheck/drvcheck/internal/load"
)

// AddTyped adds the objects of kind k listed from a cluster, already in
// their API type. With keepRaw each is kept as a map too, with the
// apiVersion and kind that list items lack once decoded.
func (inv *Inventory) AddTyped(k *Kind, objs []k8sruntime.Object, keepRaw bool) error {
	for _, o := range objs {
		x, ok := o.(metav1.Object)
		if !ok || k.typed == nil {
			return fmt.Errorf("%s: a %T is not a %s", k, o, k.Name)
		}
		k.typed.add(inv, x)
		if !keepRaw {
			continue
		}
		m, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		m["apiVersion"], m["kind"] = k.APIVersion(), k.Name
		inv.AddRaw(m)
	}
	inv.Objects += len(objs)
	return nil
}

// AddLive decodes an object listed from a cluster as a plain map (a
// custom resource, its apiVersion and kind set) into inv, as file mode
// does.
func (inv *Inventory) AddLive(raw map[string]any, keepRaw bool) error {
	o := &load.Object{Raw: raw}
	o.APIVersion, _ = raw["apiVersion"].(string)
	o.Kind, _ = raw["kind"].(string)
	if meta, ok := raw["metadata"].(map[string]any); ok {
		o.Name, _ = meta["name"].(string)
		o.Namespace, _ = meta["namespace"].(string)
	}
	x, err := decode(o)
	if err != nil {
		return err
	}
	inv.keep(o, x)
	inv.Objects++
	if keepRaw {
		inv.AddRaw(raw)
	}
	return nil
}
