package safefs

import (
	"io/fs"
	"time"
)

// Info is what quiver keeps of a stat: the file's name and its Ident, 80
// bytes where os.Stat keeps the system's whole record (240). A scan
// stats every hook of every plugin for each event, and in a one-shot
// process each fresh page of memory costs a fault, so a scan stats into
// one slice of Infos per folder (Stat).
type Info struct {
	name string
	id   Ident
	// mtime is the modification time as the system gave it: Ident's
	// nanoseconds only reach from 1678 to 2262.
	mtime struct{ sec, nsec int64 }
}

func (i *Info) Name() string       { return i.name }
func (i *Info) Size() int64        { return i.id.Size }
func (i *Info) Mode() fs.FileMode  { return i.id.Mode }
func (i *Info) ModTime() time.Time { return time.Unix(i.mtime.sec, i.mtime.nsec) }
func (i *Info) IsDir() bool        { return i.id.Mode.IsDir() }

// Sys is the Ident.
func (i *Info) Sys() any { return &i.id }
