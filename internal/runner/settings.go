package runner

import (
	"context"

	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/policy"
)

// Settings tune how facts are gathered, beyond which objects are read.
type Settings struct {
	// CUDACompat is --cuda-compat: minor (default) or strict.
	CUDACompat string
}

// cudaPolicy reads --cuda-compat and the user's additions to the table of
// images and their CUDA releases (data.drvcheck.cuda.images in --data).
func cudaPolicy(ctx context.Context, engine *policy.Engine, settings []Settings) (cuda.Policy, error) {
	var s Settings
	if len(settings) > 0 {
		s = settings[0]
	}
	compat, err := cuda.ParseCompat(s.CUDACompat)
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
	return cuda.Policy{Compat: compat, Images: images}, nil
}
