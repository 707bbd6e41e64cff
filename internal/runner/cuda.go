package runner

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/policy"
)

// cudaPolicy reads --cuda-compat and the user's additions to the table of
// images and their CUDA releases (data.drvcheck.cuda.images in --data).
func cudaPolicy(ctx context.Context, engine *policy.Engine, compat string) (cuda.Policy, error) {
	c, err := cuda.ParseCompat(compat)
	if err != nil {
		return cuda.Policy{}, err
	}
	doc, err := engine.Data(ctx, cuda.DataPath...)
	if err != nil {
		return cuda.Policy{}, err
	}
	images, err := cuda.TableFromData(doc)
	if err != nil {
		return cuda.Policy{}, err
	}
	return cuda.Policy{Compat: c, Images: images}, nil
}
