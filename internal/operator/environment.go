package operator

import "fmt"

// fromEnvironment gives a ClusterPolicy that sets none of repository,
// image and version the image the operator takes instead: its
// Deployment's DRIVER_IMAGE (ImagePath, clusterpolicy_types.go), read from
// the operator Deployment among the inputs. Without one the image cannot
// be known from the inputs; the driver says so (Unresolved) instead of
// refusing a ClusterPolicy the operator accepts.
func (p *Profile) fromEnvironment(env []EnvImage) {
	for i := range p.Drivers {
		d := &p.Drivers[i]
		if d.Object.Kind != "ClusterPolicy" || d.Repository != "" || d.Image != "" || d.Version != "" {
			continue
		}
		if len(env) > 0 {
			d.Image = env[0].Value
			p.From["repository"], p.From["image"], p.From["version"] = env[0].From, env[0].From, env[0].From
			continue
		}
		d.Unresolved = fmt.Sprintf("%s sets none of repository, image and version, so the operator takes the driver image from its own %s environment variable (as OperatorHub installs it); give the gpu-operator Deployment among the inputs, or --driver-image", d.Owner(), DriverImageEnv)
	}
}
