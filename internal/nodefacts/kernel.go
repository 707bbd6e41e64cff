package nodefacts

import (
	"cmp"
	"regexp"
	"strconv"
)

// ubuntuKernel is an Ubuntu kernel release,
// <series>.<patch>-<abi>-<flavour> (5.15.0-119-generic, 6.8.0-1015-aws,
// 6.8.0-1017-azure-fde): the form of the linux-image-* packages NVIDIA's
// precompiled builds are made for (gpu-driver-container
// base/generate-ci-config).
var ubuntuKernel = regexp.MustCompile(`^(\d+\.\d+)\.(\d+)-(\d+)-([a-z][a-z0-9-]*)$`)

// UbuntuKernel is an Ubuntu kernel release in its parts.
type UbuntuKernel struct {
	Series, Flavour string // 5.15, generic
	Patch, ABI      int    // 0, 119
}

// ParseUbuntuKernel reads an Ubuntu kernel release; ok is false for a
// kernel of another form (another distribution's, or a custom build).
func ParseUbuntuKernel(kernel string) (UbuntuKernel, bool) {
	m := ubuntuKernel.FindStringSubmatch(kernel)
	if m == nil {
		return UbuntuKernel{}, false
	}
	patch, err1 := strconv.Atoi(m[2])
	abi, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil {
		return UbuntuKernel{}, false
	}
	return UbuntuKernel{Series: m[1], Flavour: m[4], Patch: patch, ABI: abi}, true
}

// Compare orders two kernels of one series and flavour by release.
func (k UbuntuKernel) Compare(o UbuntuKernel) int {
	return cmp.Or(cmp.Compare(k.Patch, o.Patch), cmp.Compare(k.ABI, o.ABI))
}

// KernelParts splits an Ubuntu kernel release into its series (5.15) and
// flavour (generic, aws, azure-fde, gke, …); ok is false for a kernel of
// another form.
func KernelParts(kernel string) (series, flavour string, ok bool) {
	k, ok := ParseUbuntuKernel(kernel)
	return k.Series, k.Flavour, ok
}
