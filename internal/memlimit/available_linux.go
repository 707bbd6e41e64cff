package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Available is the memory this process may use, in bytes: the smallest
// cgroup limit on its path (v2's memory.max, v1's limit_in_bytes) and the
// machine's memory; 0 when none can be read.
func Available() int64 {
	var info syscall.Sysinfo_t
	total := int64(0)
	if syscall.Sysinfo(&info) == nil {
		total = int64(info.Totalram) * int64(info.Unit)
	}
	if c := cgroupLimit("/proc/self/cgroup", "/sys/fs/cgroup"); c > 0 && (total == 0 || c < total) {
		return c
	}
	return total
}

// cgroupLimit reads the memory limit of the cgroup that self (a
// /proc/PID/cgroup) names, under the cgroup file systems mounted at fsys;
// 0 when it has none or it cannot be read.
func cgroupLimit(self, fsys string) int64 {
	data, err := os.ReadFile(self)
	if err != nil {
		return 0
	}
	var best int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// hierarchy-ID:controllers:path; v2 is "0::/path".
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		var root, name string
		switch {
		case parts[0] == "0" && parts[1] == "":
			root, name = fsys, "memory.max"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			root, name = fsys+"/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		// In a container without its own cgroup namespace the path is the
		// host's, and the container's cgroup is mounted at the root.
		for _, file := range []string{root + parts[2] + "/" + name, root + "/" + name} {
			if v := readLimit(file); v > 0 && (best == 0 || v < best) {
				best = v
			}
		}
	}
	return best
}

// readLimit reads a cgroup limit file: "max", or v1's huge number for
// none, reads as 0.
func readLimit(file string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || v <= 0 || v >= 1<<62 {
		return 0
	}
	return v
}
