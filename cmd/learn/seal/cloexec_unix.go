//go:build unix

package seal

import "syscall"

// closeOnExec keeps the verdict pipe from programs the test binary starts.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
