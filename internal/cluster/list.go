package cluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// PageSize is the limit of one LIST request: large enough that a fleet of
// thousands of nodes takes a handful of requests, small enough that the API
// server never builds one huge response.
const PageSize = 500

// MaxPages bounds one list: 10,000 pages of 500 are five million objects,
// far past any cluster, and an API server (or a proxy) whose continue
// tokens never end stops there. A token seen before stops it at once.
const MaxPages = 10_000

// maxPages is MaxPages, lowered by tests that page to it.
var maxPages = MaxPages

// maxHint bounds the capacity reserved from remainingItemCount.
const maxHint = 1 << 20

// pagingError is a list whose pages would not end.
type pagingError struct{ msg string }

func (e *pagingError) Error() string { return e.msg }

// listFunc lists one page.
type listFunc func(context.Context, metav1.ListOptions) (runtime.Object, error)

// lister returns how kind k is listed: Kubernetes' own kinds typed (in
// protobuf, the cheapest to decode), custom resources as plain objects; a
// custom resource the API does not serve (its CRD is not installed) lists
// as empty.
func (c *Client) lister(k Kind) (listFunc, error) {
	if k.entry().Custom {
		res := c.dyn.Resource(schema.GroupVersionResource{Group: k.Group, Version: k.Version, Resource: k.Resource})
		return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			l, err := res.List(ctx, opts)
			if apierrors.IsNotFound(err) && opts.Continue == "" {
				return &unstructured.UnstructuredList{}, nil
			}
			return l, err
		}, nil
	}
	gv := schema.GroupVersion{Group: k.Group, Version: k.Version}
	rc, err := c.restClient(gv)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		l, err := scheme.Scheme.New(gv.WithKind(k.ObjectKind + "List"))
		if err != nil {
			return nil, err
		}
		return l, rc.Get().Resource(k.Resource).VersionedParams(&opts, scheme.ParameterCodec).Do(ctx).Into(l)
	}, nil
}

// listAll lists every object page by page, following continue tokens. The
// pages are one consistent snapshot (the first page's resourceVersion).
func listAll(ctx context.Context, list listFunc) ([]runtime.Object, error) {
	opts := metav1.ListOptions{Limit: PageSize}
	var out []runtime.Object
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		if pages > maxPages {
			return nil, &pagingError{fmt.Sprintf("more than %d pages; the continue tokens do not end", maxPages)}
		}
		l, err := list(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			// The snapshot was compacted away while we paged (a busy
			// cluster): list again in one request, as client-go's pager does.
			out, opts, seen = nil, metav1.ListOptions{}, map[string]bool{}
			continue
		}
		if err != nil {
			return nil, err
		}
		lm, err := meta.ListAccessor(l)
		if err != nil {
			return nil, err
		}
		page, err := meta.ExtractList(l)
		if err != nil {
			return nil, err
		}
		if out == nil {
			n := len(page)
			if rest := lm.GetRemainingItemCount(); rest != nil && *rest > 0 {
				n += int(min(*rest, maxHint)) // the server's word, not a promise
			}
			out = make([]runtime.Object, 0, n)
		}
		out = append(out, page...)
		next := lm.GetContinue()
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, &pagingError{fmt.Sprintf("page %d repeats an earlier continue token; the pages do not end", pages)}
		}
		seen[next] = true
		opts.Continue = next
	}
}
