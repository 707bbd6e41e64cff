package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

var errListTimeout = errors.New("listing deadline")

// paginate lists every tag of ref, page after page, within bounds: at most
// MaxPages pages and MaxTags tags, within ListTimeout, and never the same
// page twice (a Link header that points back, or a "last" that repeats).
// go-containerregistry's own List follows the registry's Link headers for
// as long as they go on.
func (l *Lister) paginate(ctx context.Context, ref name.Repository) ([]string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, l.opt.ListTimeout, errListTimeout)
	defer cancel()
	tags, err := l.pages(ctx, ref)
	if errors.Is(context.Cause(ctx), errListTimeout) {
		return nil, &limitError{fmt.Sprintf("the listing took longer than %s", l.opt.ListTimeout)}
	}
	return tags, err
}

func (l *Lister) pages(ctx context.Context, ref name.Repository) ([]string, error) {
	p, err := remote.NewPuller(l.remoteOptions(ctx)...)
	if err != nil {
		return nil, err
	}
	pager, err := p.Lister(ctx, ref)
	if err != nil {
		return nil, err
	}
	var tags []string
	seen := map[string]bool{}
	for n := 1; pager.HasNext(); n++ {
		page, err := pager.Next(ctx)
		if err != nil {
			return nil, err
		}
		tags = append(tags, page.Tags...)
		switch {
		case len(tags) > l.opt.MaxTags:
			return nil, &limitError{fmt.Sprintf("more than %d tags; the registry's pages do not end", l.opt.MaxTags)}
		case page.Next != "" && n >= l.opt.MaxPages:
			return nil, &limitError{fmt.Sprintf("more than %d pages; the registry's pages do not end", l.opt.MaxPages)}
		case page.Next != "" && seen[page.Next]:
			return nil, &limitError{fmt.Sprintf("page %d links back to an earlier page (%s); the registry's pages do not end", n, page.Next)}
		}
		seen[page.Next] = true
	}
	return tags, nil
}
