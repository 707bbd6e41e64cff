package nodefacts

// DriverKeys lists the driver branch label keys, current first; a node's
// branch is read from the first it carries.
func DriverKeys() []string {
	out := make([]string, len(driverKeys))
	for i, k := range driverKeys {
		out[i] = k.major
	}
	return out
}

// Alias returns the key of the same fact in the other generation of
// gpu-feature-discovery labels (nvidia.com/cuda.driver.major and
// nvidia.com/cuda.driver-version.major, and likewise minor and revision),
// or "" when key is neither.
func Alias(key string) string {
	cur, old := driverKeys[0], driverKeys[1]
	pairs := [][2]string{{cur.major, old.major}, {cur.minor, old.minor}, {cur.rev, old.rev}}
	for _, p := range pairs {
		switch key {
		case p[0]:
			return p[1]
		case p[1]:
			return p[0]
		}
	}
	return ""
}
