// Command ociimage builds drvcheck's container image as an OCI image layout
// (a folder that crane, skopeo, podman and containerd import) without a
// Docker daemon, using go-containerregistry. The image is scratch plus two
// layers: the static drvcheck binary at /drvcheck, and the CA certificates
// registry lookups need with an empty /tmp; it runs as user 65532 with
// entrypoint /drvcheck. Timestamps are fixed, so the same binary always
// gives the same image digest.
//
//	CGO_ENABLED=0 go build -o bin/linux/drvcheck ./cmd/drvcheck
//	go run ./hack/ociimage -binary bin/linux/drvcheck -out bin/image -tag drvcheck:dev
//
// With -push it pushes one image per architecture under a multi-arch index
// instead (the release workflow's image):
//
//	go run ./hack/ociimage -push ghcr.io/drvcheck/drvcheck:v1.2.3 \
//	    -binaries amd64=bin/release/drvcheck-linux-amd64,arm64=bin/release/drvcheck-linux-arm64
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the image runs as and where, shared with deploy/ and the Dockerfile.
const (
	Entrypoint = "/drvcheck"
	User       = "65532:65532" // distroless "nonroot"
	// RefName is the OCI annotation that names an image in a layout.
	RefName = "org.opencontainers.image.ref.name"
)

// DefaultCmd is what the image does without arguments: scan the cluster it
// runs in and print JSON for log pipelines.
var DefaultCmd = []string{"scan", "-o", "json"}

// Options describe one image.
type Options struct {
	Binary   string // static linux drvcheck binary
	CABundle string // PEM file copied to /etc/ssl/certs/ca-certificates.crt; empty for none
	Out      string // OCI layout folder, created or replaced
	Tag      string // ref name annotation, e.g. drvcheck:v1.2.0
	Arch     string // GOARCH of the binary
	Version  string // org.opencontainers.image.version label
}

func main() {
	var o Options
	flag.StringVar(&o.Binary, "binary", "", "static linux drvcheck binary (CGO_ENABLED=0)")
	flag.StringVar(&o.CABundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates for registry TLS; empty for none")
	flag.StringVar(&o.Out, "out", "bin/image", "OCI image layout folder to write")
	flag.StringVar(&o.Tag, "tag", "drvcheck:dev", "image name, stored as "+RefName)
	flag.StringVar(&o.Arch, "arch", runtime.GOARCH, "GOARCH the binary was built for")
	flag.StringVar(&o.Version, "version", "dev", "image version label")
	push := flag.String("push", "", "push a multi-arch image of -binaries to this reference instead of writing a layout")
	binaries := flag.String("binaries", "", "with -push: ARCH=PATH of each static linux binary, separated by commas")
	flag.Parse()
	if *push != "" {
		if err := pushIndex(o, *push, *binaries); err != nil {
			fmt.Fprintf(os.Stderr, "ociimage: %v\n", err)
			os.Exit(2)
		}
		return
	}
	if o.Binary == "" {
		fmt.Fprintln(os.Stderr, "ociimage: -binary is required")
		os.Exit(2)
	}
	digest, err := Build(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ociimage: %v\n", err)
		os.Exit(2)
	}
	fmt.Printf("%s %s@%s\n", o.Out, o.Tag, digest)
}

func pushIndex(o Options, ref, binaries string) error {
	bins, err := ParseBinaries(binaries)
	if err != nil {
		return err
	}
	idx, err := Index(o, bins)
	if err != nil {
		return err
	}
	digest, err := Push(ref, idx)
	if err != nil {
		return err
	}
	fmt.Printf("%s@%s\n", ref, digest)
	return nil
}

// Build writes the image to a fresh layout at o.Out and returns its digest.
func Build(o Options) (v1.Hash, error) {
	img, err := Image(o)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := os.RemoveAll(o.Out); err != nil {
		return v1.Hash{}, err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	p, err := layout.Write(o.Out, idx)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{RefName: o.Tag})); err != nil {
		return v1.Hash{}, err
	}
	return img.Digest()
}

// Image assembles the image in memory.
func Image(o Options) (v1.Image, error) {
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, err
	}
	files := []file{{name: "tmp/", mode: 0o777 | os.ModeDir | os.ModeSticky}}
	if o.CABundle != "" {
		pem, err := os.ReadFile(o.CABundle)
		if err != nil {
			return nil, fmt.Errorf("ca bundle: %w", err)
		}
		files = append(files,
			file{name: "etc/", mode: 0o755 | os.ModeDir},
			file{name: "etc/ssl/", mode: 0o755 | os.ModeDir},
			file{name: "etc/ssl/certs/", mode: 0o755 | os.ModeDir},
			file{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: pem})
	}
	base, err := layer(files)
	if err != nil {
		return nil, err
	}
	app, err := layer([]file{{name: Entrypoint[1:], mode: 0o755, data: bin}})
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, base, app); err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", o.Arch
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.Config = v1.Config{
		Entrypoint: []string{Entrypoint},
		Cmd:        DefaultCmd,
		User:       User,
		WorkingDir: "/",
		Env:        []string{"PATH=/", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "HOME=/tmp"},
		Labels: map[string]string{
			"org.opencontainers.image.title":   "drvcheck",
			"org.opencontainers.image.version": o.Version,
			"org.opencontainers.image.source":  "https://github.com/drvcheck/drvcheck",
		},
	}
	return mutate.ConfigFile(img, cf)
}

type file struct {
	name string
	mode os.FileMode
	data []byte
}

// layer makes one gzip layer of files owned by root, dated at the epoch.
func layer(files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: int64(f.mode.Perm()), ModTime: time.Unix(0, 0),
			Typeflag: tar.TypeReg, Size: int64(len(f.data)), Format: tar.FormatPAX}
		if f.mode&os.ModeSticky != 0 {
			h.Mode |= 0o1000 // /tmp
		}
		if f.mode.IsDir() {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
