package nodefacts

import "regexp"

// ubuntuKernel is an Ubuntu kernel release, <series>.<patch>-<abi>-<flavour>
// (5.15.0-119-generic, 6.8.0-1015-aws, 6.8.0-1017-azure-fde): the form of
// the linux-image-* packages NVIDIA's precompiled builds are made for
// (gpu-driver-container base/generate-ci-config).
var ubuntuKernel = regexp.MustCompile(`^(\d+\.\d+)\.\d+-\d+-([a-z][a-z0-9-]*)$`)

// KernelParts splits an Ubuntu kernel release into its series (5.15) and
// flavour (generic, aws, azure-fde, gke, …); ok is false for a kernel of
// another form (another distribution's, or a custom build).
func KernelParts(kernel string) (series, flavour string, ok bool) {
	m := ubuntuKernel.FindStringSubmatch(kernel)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
