package suite_test

import (
	"os"
	"syscall"
)

// fastGoTemp returns a new directory on /dev/shm for the go command's
// temporary work directories (GOTMPDIR), or "" when /dev/shm is not a
// tmpfs with room to spare. The go command makes a directory for every
// package of a build in its work directory, even when all of them come from
// the build cache; on a disk file system (ext4 here) that was a quarter of
// the CPU time of each go test ./evaltest of the scripts.
func fastGoTemp() string {
	const tmpfsMagic = 0x01021994
	var fs syscall.Statfs_t
	if syscall.Statfs("/dev/shm", &fs) != nil || fs.Type != tmpfsMagic || fs.Bavail*uint64(fs.Bsize) < 2<<30 {
		return "" // a small /dev/shm (64 MiB in a container) could not hold the test binaries the go command writes there
	}
	dir, err := os.MkdirTemp("/dev/shm", "mcpeval-scripts-gotmp-")
	if err != nil {
		return ""
	}
	return dir
}
