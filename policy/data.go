package policy

import (
	"context"

	"github.com/open-policy-agent/opa/v1/storage"
)

// Data returns the document at path in the user's data (--data), or nil
// when there is none. Go-side fact gathering reads its user-extensible
// tables from there, so that one --data file serves Go and Rego alike.
func (e *Engine) Data(ctx context.Context, path ...string) (any, error) {
	v, err := storage.ReadOne(ctx, e.store, storage.Path(path))
	if storage.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, oneLine(err)
	}
	return v, nil
}
