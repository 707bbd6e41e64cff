package cluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		page := items(l)
		if out == nil {
			n := len(page)
			if rest := l.GetRemainingItemCount(); rest != nil && *rest > 0 {
				n += int(min(*rest, maxHint)) // the server's word, not a promise
			}
			out = make([]*T, 0, n)
		}
		for i := range page {
			out = append(out, &page[i])
		}
		next := l.GetContinue()
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
