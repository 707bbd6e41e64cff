package testcluster

import "syscall"

// procAttr makes the kernel kill a control-plane process when the test
// binary dies without cleaning up, so no orphan keeps ports or CPU.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
