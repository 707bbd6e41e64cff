//go:build !linux

package testcluster

import "syscall"

func procAttr() *syscall.SysProcAttr { return nil }
