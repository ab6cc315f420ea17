package safefs

import (
	"io/fs"
)

// Ident is what stat says of a file: any change to its content, its
// metadata or which file a path names changes it (the inode change time
// moves on every write and chmod, and no program can set it). Two equal
// Idents of one path, taken at two instants, mean the file was not
// touched in between, which is how quiver knows that what it starts is
// what it fingerprinted.
type Ident struct {
	Dev, Ino           uint64
	Size, Mtime, Ctime int64
	Mode               fs.FileMode
}

// IdentOf is fi's Ident.
func IdentOf(fi fs.FileInfo) Ident {
	if info, ok := fi.(*Info); ok {
		return info.id
	}
	id := Ident{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: fi.Mode()}
	id.Dev, id.Ino, id.Ctime = inode(fi)
	return id
}

// Identify stats path (following links) and returns its Ident.
func Identify(path string) (Ident, error) {
	var info Info
	if err := Stat(path, &info); err != nil {
		return Ident{}, err
	}
	return info.id, nil
}

// IsZero reports an Ident never taken.
func (id Ident) IsZero() bool { return id == Ident{} }
