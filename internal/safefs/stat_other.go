//go:build !linux

package safefs

import "os"

// Stat stats path, following links, into info, as os.Stat does.
func Stat(path string, info *Info) error { return statInto(os.Stat, path, info) }

// Lstat is Stat of a link itself, as os.Lstat.
func Lstat(path string, info *Info) error { return statInto(os.Lstat, path, info) }

func statInto(stat func(string) (os.FileInfo, error), path string, info *Info) error {
	fi, err := stat(path)
	if err != nil {
		return err
	}
	*info = Info{name: fi.Name(), id: IdentOf(fi)}
	info.mtime.sec, info.mtime.nsec = fi.ModTime().Unix(), int64(fi.ModTime().Nanosecond())
	return nil
}
