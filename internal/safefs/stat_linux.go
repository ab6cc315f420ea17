package safefs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
)

// Stat stats path, following links, into info: os.Stat without the
// record it allocates. The error is os.Stat's.
func Stat(path string, info *Info) error { return statInto(true, path, info) }

// Lstat is Stat of a link itself, as os.Lstat.
func Lstat(path string, info *Info) error { return statInto(false, path, info) }

func statInto(follow bool, path string, info *Info) error {
	var st syscall.Stat_t
	op, err := "stat", error(nil)
	for {
		if follow {
			err = syscall.Stat(path, &st)
		} else {
			op, err = "lstat", syscall.Lstat(path, &st)
		}
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	info.name = filepath.Base(path)
	info.id = Ident{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Mode: fileMode(st.Mode)}
	info.mtime.sec, info.mtime.nsec = st.Mtim.Unix()
	return nil
}

// fileMode is os.Stat's FileMode of a stat's mode bits.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
