package inventory

import (
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/load"
)

// FromObjects decodes loaded manifests and builds the inventory; see
// Decoder and FromDecoded, which do the same in two steps.
func FromObjects(objs []*load.Object, keepRaw bool) (*Inventory, error) {
	each := Decoder(keepRaw)
	for _, o := range objs {
		if err := each(o); err != nil {
			return nil, err
		}
	}
	return FromDecoded(objs, keepRaw)
}

// Decoder returns the step that decodes one loaded manifest into its API
// type (Object.Decoded), for load.Options.Each, so that it runs on the
// loader's workers. Kinds no rule uses, and kinds of other API groups that
// share a name (a CRD called Deployment), are left undecoded. A kind in its
// own group at a version Kubernetes no longer serves, or a field of the
// wrong type, is an error naming the object and where it was read.
//
// Without keepRaw the manifest is dropped once decoded: the plain values
// take as much memory as the typed objects, and only custom rules read
// them (input.objects).
func Decoder(keepRaw bool) func(*load.Object) error {
	return func(o *load.Object) error {
		x, err := decode(o)
		if err != nil {
			return err
		}
		if x != nil {
			o.Decoded = x
		}
		if !keepRaw {
			o.Raw = nil
		}
		return nil
	}
}

// FromDecoded builds the inventory from objects Decoder has seen, in read
// order. The same object twice is an error naming both places.
func FromDecoded(objs []*load.Object, keepRaw bool) (*Inventory, error) {
	inv := &Inventory{Objects: len(objs)}
	for _, o := range objs {
		if keepRaw {
			inv.raw = append(inv.raw, o.Raw)
		}
		if o.Decoded == nil {
			if why := unreadWhy(o); why != "" {
				inv.addUnread(o, why)
			}
			continue
		}
		if cm, ok := o.Decoded.(*corev1.ConfigMap); ok { // configmap.go
			inv.ConfigMaps = append(inv.ConfigMaps, cm)
			o.Decoded = nil
			continue
		}
		// Objects named by one generateName are as many objects, each
		// given its own name on creation: the first is where they point.
		if prev := inv.Origin(o.Ref()); prev != nil && !o.Generated() {
			return nil, fmt.Errorf("%s: defined twice, also at %s:%d", o.Where(), prev.Source.Name, prev.Line)
		}
		inv.keep(o, o.Decoded)
		o.Decoded = nil // the inventory holds it now
		inv.SetOrigin(o)
	}
	return inv, nil
}

// keep adds x, decoded from o, to its kind's place in inv.
func (inv *Inventory) keep(o *load.Object, x any) {
	switch x := x.(type) {
	case *customObject:
		inv.Custom = append(inv.Custom, x)
	case metav1.Object:
		group, _ := splitAPIVersion(o.APIVersion)
		Lookup(group, o.Kind).typed.add(inv, x)
	}
}

// decode returns nil, nil for objects no rule reads; a custom resource
// with pod templates decodes to a *customObject.
func decode(o *load.Object) (any, error) {
	if isConfigMap(o) {
		return decodeConfigMap(o)
	}
	group, version := splitAPIVersion(o.APIVersion)
	k := Lookup(group, o.Kind)
	if k == nil || k.typed == nil {
		return decodeCustomObject(o, group, k)
	}
	if k.Optional && !k.Files {
		// Only a cluster's say which pods hold what (ResourceClaim
		// status); a manifest of one, at any version, is not read.
		return nil, nil
	}
	if o.Namespace == "" && k.Namespaced {
		o.Namespace = load.DefaultNamespace
	}
	if version != k.Version {
		return nil, fmt.Errorf("%s: apiVersion %s is not served by current Kubernetes; use %s",
			o.Where(), o.APIVersion, k.APIVersion())
	}
	x, err := decodeTyped(o, k)
	if err != nil {
		return nil, err
	}
	if o.Namespace != "" {
		x.SetNamespace(o.Namespace)
	}
	if errs := validate(k, x); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %s: the API server refuses it", atField(o, fieldPath(errs[0].Field)), errs[0].Error())
	}
	return x, nil
}

// decodeTyped is o as k's API type: decoded already, as it was parsed
// (DirectType), or from its plain values.
func decodeTyped(o *load.Object, k *Kind) (metav1.Object, error) {
	if x, ok := o.Decoded.(metav1.Object); ok && o.Raw == nil {
		return x, nil
	}
	x, err := k.typed.decode(o.Raw)
	if err != nil {
		if p, why := mismatch(o.Raw, k.typed.typ, nil); p != nil {
			return nil, fmt.Errorf("%s: %s: %s", atField(o, p), dotted(p), why)
		}
		return nil, fmt.Errorf("%s: %s", o.Where(), conversionError(err))
	}
	if o.Wide() {
		if p := overflow(o.Raw, k.typed.typ, nil); p != nil {
			return nil, fmt.Errorf("%s: %s: %v does not fit the field's 32 bits", atField(o, p), dotted(p), load.At(o.Raw, p...))
		}
	}
	return x, nil
}

// DirectType is load.Options.Typed for a run that keeps no plain values
// (no custom rule reads input.objects): the API type of the kinds decode
// reads into one by reflection alone. Not a ConfigMap (decoded apart), an
// optional kind files do not hold, a kind at a version it refuses, or a
// kind that keeps its spec as read (ClusterPolicy, NVIDIADriver).
func DirectType(apiVersion, kind string) reflect.Type {
	group, version := splitAPIVersion(apiVersion)
	k := Lookup(group, kind)
	if k == nil || k.typed == nil || k.Optional && !k.Files || version != k.Version || kind == "ConfigMap" && group == "" {
		return nil
	}
	if reflect.PointerTo(k.typed.typ).Implements(reflect.TypeFor[specKeeper]()) {
		return nil
	}
	return k.typed.typ
}

// atField names the object and the line of the field at path.
func atField(o *load.Object, path []any) string {
	if o.Source == nil {
		return o.Ref().String()
	}
	return fmt.Sprintf("%s (%s:%d)", o.Ref(), o.Source.Name, o.FieldLine(path))
}

// dotted writes a path as the API server does: spec.template.containers[0].
func dotted(path []any) string {
	var b strings.Builder
	for _, p := range path {
		if i, ok := p.(int); ok {
			fmt.Fprintf(&b, "[%d]", i)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}

// conversionError keeps the converter's first line, which names the field.
func conversionError(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

func splitAPIVersion(av string) (group, version string) {
	if g, v, ok := strings.Cut(av, "/"); ok {
		return g, v
	}
	return "", av
}

func joinAPIVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}
