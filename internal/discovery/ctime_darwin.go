package discovery

import "syscall"

// keepsChangeTime reports whether path lies on APFS or HFS+, which keep a
// real inode change time that only the kernel sets.
func keepsChangeTime(path string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return false
	}
	var name []byte
	for _, c := range st.Fstypename {
		if c == 0 {
			break
		}
		name = append(name, byte(c))
	}
	return string(name) == "apfs" || string(name) == "hfs"
}
