package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Duration is a time.Duration written as in Go and kubectl ("30s", "1h").
type Duration time.Duration

// UnmarshalJSON reads "30s"; a bare number would be nanoseconds, which no
// one means, so it is refused.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as 30s")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30s", s)
	}
	*d = Duration(v)
	return nil
}

// Bytes is a size written as Kubernetes writes quantities ("512Mi", "2Gi",
// or a plain number of bytes).
type Bytes int64

func (b *Bytes) String() string { return resource.NewQuantity(int64(*b), resource.BinarySI).String() }

// Set parses a size; it must be more than zero.
func (b *Bytes) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() <= 0 {
		return fmt.Errorf("%q is not a size such as 512Mi", s)
	}
	*b = Bytes(q.Value())
	return nil
}

// Type names the flag's value in the help.
func (b *Bytes) Type() string { return "size" }

// UnmarshalJSON reads "512Mi" or a number of bytes.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		s = string(data)
	}
	return b.Set(s)
}

// Repeated is a flag given once or more (--context a --context b) that a
// config file may write as one name or a list.
type Repeated []string

func (n *Repeated) String() string { return strings.Join(*n, ",") }

// Set adds one name: the first replaces the default.
func (n *Repeated) Set(s string) error {
	if s == "" {
		return fmt.Errorf("an empty name")
	}
	*n = append(*n, s)
	return nil
}

// Type names the flag's value in the help.
func (n *Repeated) Type() string { return "name" }

// UnmarshalJSON reads "prod" or ["eu-1", "us-1"].
func (n *Repeated) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*n = Repeated{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("want a name or a list of names")
	}
	*n = list
	return nil
}

// Bind registers a flag for every field of each options struct (pointers),
// with the field's current value as its default.
func Bind(fs *pflag.FlagSet, opts ...any) {
	for _, o := range opts {
		eachField(o, func(f field) {
			switch p := f.value.Addr().Interface().(type) {
			case *[]string:
				fs.StringArrayVarP(p, f.name, f.short, *p, f.usage)
			case *string:
				fs.StringVarP(p, f.name, f.short, *p, f.usage)
			case *bool:
				fs.BoolVarP(p, f.name, f.short, *p, f.usage)
			case *Duration:
				fs.DurationVarP((*time.Duration)(p), f.name, f.short, time.Duration(*p), f.usage)
			case *Bytes:
				fs.VarP(p, f.name, f.short, f.usage)
			case *Repeated:
				fs.VarP(p, f.name, f.short, f.usage)
			default:
				panic(fmt.Sprintf("config: option %s has a type Bind does not know: %T", f.name, p))
			}
		})
	}
}

// Apply sets every option the file gives and the command line does not,
// so a flag wins over the file, and the file over the default. Paths are
// taken relative to the file's folder.
func (file *File) Apply(fs *pflag.FlagSet, opts ...any) error {
	for _, o := range opts {
		var err error
		eachField(o, func(f field) {
			raw, given := file.options[f.name]
			if err != nil || !given {
				return
			}
			// A repository's config is refused what it may not set even
			// where a flag overrides it: the file is wrong either way.
			if why := file.untrusted(f, raw); why != "" {
				err = fmt.Errorf("config %s: %s: %s", file.Path, f.name, why)
				return
			}
			if fs.Lookup(f.name) != nil && fs.Changed(f.name) {
				return
			}
			if err = json.Unmarshal(raw, f.value.Addr().Interface()); err != nil {
				err = fmt.Errorf("config %s: %s: %v", file.Path, f.name, err)
				return
			}
			if f.path {
				file.resolve(f.value)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// resolve makes the relative paths of a path option relative to the file.
func (file *File) resolve(v reflect.Value) {
	dir := filepath.Dir(file.Path)
	join := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	switch x := v.Addr().Interface().(type) {
	case *string:
		*x = join(*x)
	case *[]string:
		for i, p := range *x {
			// A report is FORMAT=FILE: only the file is a path.
			if format, path, ok := strings.Cut(p, "="); ok {
				if format != ConfigMapReport {
					(*x)[i] = format + "=" + join(path)
				}
				continue
			}
			(*x)[i] = join(p)
		}
	}
}

// Check rejects what no flag may be: a negative duration (a timeout of
// -5s is no timeout the user meant, and a negative cache-ttl no age).
func Check(opts ...any) error {
	var err error
	for _, o := range opts {
		eachField(o, func(f field) {
			if d, ok := f.value.Addr().Interface().(*Duration); ok && *d < 0 && err == nil {
				err = fmt.Errorf("--%s %s: must not be negative", f.name, time.Duration(*d))
			}
		})
	}
	return err
}

// field is one option: its flag and key, help, and value.
type field struct {
	name, short, usage, trust string
	path                      bool
	value                     reflect.Value
}

func eachField(opts any, do func(field)) {
	v := reflect.ValueOf(opts).Elem()
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		_, path := sf.Tag.Lookup("path")
		do(field{name: name, short: sf.Tag.Get("short"), usage: sf.Tag.Get("usage"), trust: sf.Tag.Get("trust"), path: path, value: v.Field(i)})
	}
}

// keys lists every key a config file may hold.
// Names are the flags an options struct (a pointer) binds, in order.
func Names(opts any) []string {
	var out []string
	eachField(opts, func(f field) { out = append(out, f.name) })
	return out
}

func keys() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, o := range every {
		eachField(o, func(f field) { out[f.name] = f.value.Type() })
	}
	return out
}
