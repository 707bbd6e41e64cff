package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCgroupLimit reads the limit as cgroup v2 and v1 write it, with the
// cgroup's own path or, in a container, at the mount's root.
func TestCgroupLimit(t *testing.T) {
	cases := []struct {
		name, self string
		files      map[string]string
		want       int64
	}{
		{"v2 limit", "0::/job\n", map[string]string{"job/memory.max": "2147483648\n"}, 2 << 30},
		{"v2 none", "0::/job\n", map[string]string{"job/memory.max": "max\n"}, 0},
		{"v1 limit", "4:memory:/job\n3:cpu:/job\n", map[string]string{"memory/job/memory.limit_in_bytes": "1073741824\n"}, 1 << 30},
		{"v1 none", "4:memory:/job\n", map[string]string{"memory/job/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"v1 container root", "4:memory:/host/path\n", map[string]string{"memory/memory.limit_in_bytes": "536870912\n"}, 512 << 20},
		{"v1 joined controllers", "4:cpu,memory:/job\n", map[string]string{"memory/job/memory.limit_in_bytes": "1073741824"}, 1 << 30},
		{"the smaller of two", "0::/job\n4:memory:/job\n", map[string]string{"job/memory.max": "3221225472", "memory/job/memory.limit_in_bytes": "1073741824"}, 1 << 30},
		{"no memory controller", "3:cpu:/job\n", nil, 0},
		{"garbage", "0::/job\n", map[string]string{"job/memory.max": "lots"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			self := filepath.Join(dir, "cgroup")
			write(t, self, c.self)
			for name, data := range c.files {
				write(t, filepath.Join(dir, "fs", name), data)
			}
			if got := cgroupLimit(self, filepath.Join(dir, "fs")); got != c.want {
				t.Errorf("cgroupLimit = %d, want %d", got, c.want)
			}
		})
	}
	if got := cgroupLimit(filepath.Join(t.TempDir(), "absent"), "/sys/fs/cgroup"); got != 0 {
		t.Errorf("no /proc/self/cgroup: %d, want 0", got)
	}
}

func TestAvailableIsTheMachinesAtMost(t *testing.T) {
	got := Available()
	if got <= 0 {
		t.Fatalf("Available() = %d on Linux", got)
	}
	if c := Ceiling(); c != got/4*3 {
		t.Errorf("Ceiling() = %d, want three quarters of %d", c, got)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
