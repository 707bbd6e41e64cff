package cluster

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PageSize is the limit of one LIST request: large enough that a fleet of
// thousands of nodes takes a handful of requests, small enough that the API
// server never builds one huge response.
const PageSize = 500

// lister binds a typed List call to where its objects go.
func lister[L metav1.ListInterface, T any](list func(context.Context, metav1.ListOptions) (L, error), items func(L) []T, dst *[]*T) func(context.Context) error {
	return func(ctx context.Context) error {
		out, err := listAll(ctx, list, items)
		*dst = out
		return err
	}
}

// listAll lists every object page by page, following continue tokens. The
// pages are one consistent snapshot (the first page's resourceVersion).
func listAll[L metav1.ListInterface, T any](ctx context.Context, list func(context.Context, metav1.ListOptions) (L, error), items func(L) []T) ([]*T, error) {
	opts := metav1.ListOptions{Limit: PageSize}
	var out []*T
	for {
		l, err := list(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			// The snapshot was compacted away while we paged (a busy
			// cluster): list again in one request, as client-go's pager does.
			out, opts = nil, metav1.ListOptions{}
			continue
		}
		if err != nil {
			return nil, err
		}
		page := items(l)
		if out == nil {
			n := len(page)
			if rest := l.GetRemainingItemCount(); rest != nil && *rest > 0 {
				n += int(*rest)
			}
			out = make([]*T, 0, n)
		}
		for i := range page {
			out = append(out, &page[i])
		}
		if l.GetContinue() == "" {
			return out, nil
		}
		opts.Continue = l.GetContinue()
	}
}
