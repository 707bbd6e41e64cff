package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drvcheck/drvcheck/internal/fileerr"
	"github.com/drvcheck/drvcheck/internal/load/renderer"
	"github.com/drvcheck/drvcheck/internal/memlimit"
	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/internal/sandbox"
)

// Options tune which files a folder walk reads.
type Options struct {
	// Ignore holds glob patterns (filepath.Match) tested against each walked
	// path and its base name; matches are skipped.
	Ignore []string
	// Stdin is read for the path "-".
	Stdin io.Reader
	// FS opens every file the run reads, inside the repositories of its
	// paths and within its limits (internal/repofs). Nil: one made of the
	// paths' repositories and MaxFile and MaxTotal (0: the defaults).
	FS                *repofs.FS
	MaxFile, MaxTotal int64
	// RenderTimeout bounds each chart's rendering and each kustomization's
	// build, which run in the sandbox (internal/sandbox); the context's
	// deadline bounds them too.
	RenderTimeout time.Duration
	// Note receives what the walk skips, one line each; nil drops it.
	Note func(string)
	// Strict fails on a file that holds no Kubernetes object (NotKubernetes)
	// as on any malformed file; otherwise Skip is told of it, and it adds
	// nothing. Skip is called from the loader's workers, concurrently.
	Strict bool
	Skip   func(path, reason string)
	// NoRender walks a folder with a kustomization or a Helm chart file by
	// file, as any folder, instead of building or rendering it; Helm holds
	// the values charts are rendered with.
	NoRender bool
	Helm     HelmValues
	// Install receives the GitOps objects that install NVIDIA's
	// gpu-operator chart from a chart repository (OperatorInstall), in
	// read order.
	Install func(OperatorInstall)
	// Each, when set, is called on every object by the worker that parsed
	// it, in read order within a file. Decoding objects there, while other
	// workers still parse, keeps a file's plain values short-lived instead
	// of holding every file's at once. Its error fails the file.
	Each func(*Object) error
	// Typed, when set, names the API type an object of apiVersion and
	// kind is decoded to (nil: none, or not this way). A file's object of
	// such a kind is then decoded as it is parsed, straight from its YAML
	// into Decoded (yamlconv.Typed), and has no Raw: its plain values are
	// never made. Whatever that path does not take exactly as the plain
	// values and FromUnstructured would (an alias, a field of the wrong
	// kind) goes the plain way, whose errors name the field.
	Typed func(apiVersion, kind string) reflect.Type

	// pool renders in children started once per run (Load's).
	pool *sandbox.Pool
}

// renders is what the run's renders share (internal/load/renderer).
func (opt Options) renders() renderer.Run {
	return renderer.Run{FS: opt.FS, Timeout: opt.RenderTimeout, Pool: opt.pool}
}

// Load reads every object under paths. Folders are walked recursively for
// .yaml, .yml and .json files, skipping hidden folders such as .git and
// .github and hidden files such as .drvcheck.yaml; files named explicitly
// are read whatever their extension.
func Load(ctx context.Context, paths []string, opt Options) ([]*Object, error) {
	if opt.FS == nil {
		var err error
		if opt.FS, err = repofs.New(repofs.RootsOf(paths...), repofs.Limits{File: opt.MaxFile, Total: opt.MaxTotal}); err != nil {
			return nil, err
		}
	}
	files, err := expand(paths, opt)
	if err != nil {
		return nil, err
	}
	opt.Helm.used = &sync.Map{}
	opt.pool = sandbox.NewPool(renderChildren(), opt.renders().Limits())
	defer opt.pool.Close()
	results := make([][]*Object, len(files))
	err = parallel(ctx, len(files), func(ctx context.Context, i int) (err error) {
		results[i], err = readSource(ctx, files[i], opt)
		return err
	})
	if err != nil {
		return nil, err // the first failing file, in path order
	}
	var out []*Object
	for i := range files {
		out = append(out, results[i]...)
	}
	installs(out, opt)
	if opt.NoRender {
		return out, nil
	}
	if out, err = follow(ctx, out, opt); err != nil {
		return nil, err
	}
	return out, opt.Helm.unusedScoped()
}

// maxChildren bounds the sandbox children of a run: one per CPU, up to
// four, so that hostile charts hold at most four memory ceilings at once
// on a runner of many cores (each child may reach its ceiling and more
// before its sampler sees it), while 2,000 renders still take seconds.
const maxChildren = 4

func renderChildren() int { return min(runtime.GOMAXPROCS(0), maxChildren) }

// parallel calls do for every i below n, on one worker per CPU, and
// returns the error of the lowest i that failed. A failure at i cancels
// the calls after i still running and skips those not started: a chart
// that fails at once ends the run at once, not after every other render's
// deadline (and then a --timeout that names no chart). The calls before i
// go on, so the error is the same whatever order the workers ran in.
//
// Each worker takes the next i itself. Handed out through a channel, each
// call passed through the goroutine that sent it, and the run's threads
// slept and woke on the way: on a repository of one object per file
// (scattered: 90,000 files at 15,000 nodes) 22,500-24,300 times a run,
// against 7,000-9,600 now (voluntary context switches), with a CPU idle
// while one slept.
func parallel(ctx context.Context, n int, do func(ctx context.Context, i int) error) error {
	p := &pass{first: n, errs: make([]error, n), cancels: make([]context.CancelFunc, n)}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if c, ok := p.start(ctx, i); ok {
					p.done(i, do(c, i))
				}
			}
		})
	}
	wg.Wait()
	if p.first < n {
		return p.errs[p.first]
	}
	return nil
}

// pass is the state of one parallel call.
type pass struct {
	mu      sync.Mutex
	first   int // the lowest i that failed; n while none did
	errs    []error
	cancels []context.CancelFunc // of the calls running
}

// start gives call i its context, or false when a call before it failed.
func (p *pass) start(ctx context.Context, i int) (context.Context, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i > p.first {
		return nil, false
	}
	c, cancel := context.WithCancel(ctx)
	p.cancels[i] = cancel
	return c, true
}

// done records call i's error; a failure cancels the calls after it.
func (p *pass) done(i int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cancels[i]()
	p.cancels[i] = nil
	if err == nil || i > p.first {
		return
	}
	p.errs[i], p.first = err, i
	for _, cancel := range p.cancels[i+1:] {
		if cancel != nil {
			cancel()
		}
	}
}

func readSource(ctx context.Context, src *Source, opt Options) ([]*Object, error) {
	if src.kustomize || src.chart {
		var objs []*Object
		var err error
		if src.chart {
			objs, err = renderChart(ctx, src.Name, opt.Helm, opt)
		} else {
			objs, err = buildKustomization(ctx, src.Name, opt)
		}
		if err != nil {
			return nil, err
		}
		return each(objs, opt)
	}
	data, err := read(src, opt)
	if err != nil {
		return nil, err
	}
	memlimit.Input(int64(len(data)))
	objs, err := ParseTyped(src, data, opt.Typed)
	if err != nil && !opt.Strict && src.Name != "-" {
		if why := NotKubernetes(data); why != "" {
			if opt.Skip != nil {
				opt.Skip(src.Name, why)
			}
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return each(objs, opt)
}

// each runs opt.Each on every object of a source.
func each(objs []*Object, opt Options) ([]*Object, error) {
	if opt.Each == nil {
		return objs, nil
	}
	for _, o := range objs {
		if isGitOps(o) {
			o.gitops = o.Raw // Each may drop Raw; follow reads it later
		}
		if err := opt.Each(o); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// read reads one source: stdin, a file the user named (through the
// opener, which follows a link it names only inside the repository), or
// a walked one.
func read(src *Source, opt Options) ([]byte, error) {
	if src.Name == "-" {
		r := opt.Stdin
		if r == nil {
			r = os.Stdin
		}
		return opt.FS.ReadStream(src.Name, r)
	}
	if src.given {
		return opt.FS.ReadGiven(src.Name)
	}
	return opt.FS.ReadFile(src.Name)
}

// expand turns the user's paths into the list of sources to read.
func expand(paths []string, opt Options) ([]*Source, error) {
	var out []*Source
	stdin := false
	for _, p := range paths {
		if p == "-" {
			if stdin {
				return nil, errors.New("-: standard input can be read only once")
			}
			stdin = true
			out = append(out, &Source{Name: "-"})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, fileerr.Reason(err))
		}
		if !info.IsDir() {
			if !opt.NoRender && renderer.IsKustomization(filepath.Base(p)) {
				out = append(out, &Source{Name: filepath.Dir(p), kustomize: true})
				continue
			}
			if !opt.NoRender && filepath.Base(p) == "Chart.yaml" {
				out = append(out, &Source{Name: filepath.Dir(p), chart: true})
				continue
			}
			out = append(out, &Source{Name: p, given: true})
			continue
		}
		root, err := namedFolder(p, opt.FS)
		if err != nil {
			return nil, err
		}
		found, err := walk(root, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// namedFolder is the folder p names as a walk's root, with or without a
// trailing slash: inside a repository, where it must lead (a link out of
// it is refused, as a file's is); and a link followed once, for a walk
// does not descend into a link it starts at (check charts/link found
// nothing where check charts/link/ found the chart).
func namedFolder(p string, fsys *repofs.FS) (string, error) {
	if fsys.Inside(p) {
		if _, err := fsys.Resolve(p); err != nil {
			return "", err
		}
	}
	if info, err := os.Lstat(p); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return p + string(filepath.Separator), nil
	}
	return p, nil
}

func walk(root string, opt Options) ([]*Source, error) {
	var out []*Source
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, fileerr.Reason(err))
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
		}
		if ignored(path, d.Name(), opt.Ignore) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		// Hidden folders (.git, .github) and files (.drvcheck.yaml,
		// .pre-commit-config.yaml) are tooling, never manifests.
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			// A kustomization is built, from its folder down; the files
			// below are its own.
			if !opt.NoRender && renderer.KustomizationIn(opt.FS, path) != "" {
				out = append(out, &Source{Name: path, kustomize: true})
				return filepath.SkipDir
			}
			// A chart is rendered, its subcharts with it.
			if !opt.NoRender && chartIn(opt.FS, path) {
				out = append(out, &Source{Name: path, chart: true})
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			if why := irregular(path, d, realRoot); why != "" {
				note(opt, fmt.Sprintf("%s: skipped: %s", path, why))
				return nil
			}
			out = append(out, &Source{Name: path})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return onlyRoots(opt.FS, out), nil
}

// onlyRoots drops the kustomizations another one of the walk builds (a
// base its overlays use), which are deployed through it, not alone. Only a
// root's build covers one: kustomizations that use each other in a cycle,
// none of them a root, are each built (and their build names the cycle),
// where dropping them all checked nothing and passed.
func onlyRoots(fsys *repofs.FS, srcs []*Source) []*Source {
	reach := map[string]map[string]bool{} // each kustomization's local dirs, itself included
	used := map[string]bool{}
	for _, s := range srcs {
		if !s.kustomize {
			continue
		}
		self, _ := filepath.Abs(s.Name)
		reach[self] = renderer.LocalDirs(fsys, s.Name)
		for d := range reach[self] {
			if d != self {
				used[d] = true
			}
		}
	}
	covered := map[string]bool{}
	for self, dirs := range reach {
		if used[self] {
			continue
		}
		for d := range dirs {
			if d != self {
				covered[d] = true
			}
		}
	}
	out := srcs[:0]
	for _, s := range srcs {
		abs, _ := filepath.Abs(s.Name)
		if !s.kustomize || !covered[abs] {
			out = append(out, s)
		}
	}
	return out
}

// irregular says why a walked file is not read, or "" when it is read: a
// walk reads regular files only, and follows a symbolic link only to a
// regular file inside the walked folder. A named pipe would hang the run
// and a link to /dev/zero would fill the memory; a link out of the folder
// would read what the repository does not hold.
func irregular(path string, d fs.DirEntry, root string) string {
	if d.Type().IsRegular() {
		return ""
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return "not a regular file (" + repofs.KindOf(d.Type()) + ")"
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "a symbolic link that cannot be followed: " + fileerr.Reason(err).Error()
	}
	if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "a symbolic link out of the folder, to " + target
	}
	info, err := os.Stat(target)
	if err != nil || !info.Mode().IsRegular() {
		return "a symbolic link to " + target + ", not a regular file"
	}
	return ""
}

func note(opt Options, msg string) {
	if opt.Note != nil {
		opt.Note(msg)
	}
}

func ignored(path, base string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, path); ok {
			return true
		}
		if ok, _ := filepath.Match(p, base); ok {
			return true
		}
	}
	return false
}
