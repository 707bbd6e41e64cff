package inventory

import (
	"context"
	"reflect"

	"github.com/drvcheck/drvcheck/internal/load"
)

// Read loads the manifests under paths and decodes them on the loader's
// workers, as each file is parsed (see Decoder): the file mode of every
// command.
func Read(ctx context.Context, paths []string, opt load.Options, keepRaw bool) (*Inventory, error) {
	opt.Each = Decoder(keepRaw)
	if !keepRaw {
		opt.Typed = DirectType
	}
	objs, err := load.Load(ctx, paths, opt)
	if err != nil {
		return nil, err
	}
	return FromDecoded(objs, keepRaw)
}

// Parse decodes the manifests of one YAML or JSON source held in memory;
// name is how messages and findings refer to it.
func Parse(name string, data []byte, keepRaw bool) (*Inventory, error) {
	var typed func(apiVersion, kind string) reflect.Type
	if !keepRaw {
		typed = DirectType
	}
	objs, err := load.ParseTyped(&load.Source{Name: name}, data, typed)
	if err != nil {
		return nil, err
	}
	return FromObjects(objs, keepRaw)
}
