//go:build !linux

package safefs

import "os"

// Stat stats path, following links, into info, as os.Stat does.
func Stat(path string, info *Info) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	*info = Info{name: fi.Name(), id: IdentOf(fi)}
	return nil
}
