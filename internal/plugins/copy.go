package plugins

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// copyTree copies the plain folder src into dst (which must not exist),
// keeping file modes and recreating symlinks as they are; CheckSymlinks
// judges them afterwards. Other file types (sockets, devices) are refused.
//
// The same limits as a checkout apply (MaxPluginTotal, MaxPluginFiles), so
// a lock entry naming /usr as a local source copies a bounded amount before
// it is refused.
func copyTree(src, dst string) error {
	var total int64
	files := 0
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := e.Info()
		if err != nil {
			return err
		}
		if files++; files > MaxPluginFiles {
			return fmt.Errorf("%s has more than %d files; a plugin may have at most that", src, MaxPluginFiles)
		}
		if info.Mode().IsRegular() {
			total += info.Size()
		}
		if total > MaxPluginTotal {
			return fmt.Errorf("the files of %s add up to more than %s; a plugin may have at most that", src, safefs.Size(MaxPluginTotal))
		}
		switch t := info.Mode(); {
		case t.IsDir():
			return os.Mkdir(to, t.Perm()|0o700)
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case t.IsRegular():
			return copyFile(p, to, t.Perm())
		default:
			return fmt.Errorf("%s: cannot copy a %s", rel, t.Type())
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := safefs.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(in, MaxPluginFile+1))
	if err == nil && n > MaxPluginFile {
		err = fmt.Errorf("%s is larger than %s; plugin files may be at most that", src, safefs.Size(MaxPluginFile))
	}
	if err != nil {
		out.Close()
		return err
	}
	// OpenFile's mode is filtered by the umask; set it exactly.
	if err := out.Chmod(perm); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
