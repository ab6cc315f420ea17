package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrUnsafeSymlink is wrapped by the error for a symlink whose target is
// absolute or leads outside the plugin folder.
var ErrUnsafeSymlink = errors.New("symlink escapes the plugin")

// CheckSymlinks walks root (without following links) and refuses any symlink
// whose target is absolute or resolves outside root, directly or through
// other links (SPEC §2). go-git does not check this for us.
func CheckSymlinks(root string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	return filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		shown := target
		if inside, err := filepath.Rel(root, target); err == nil && filepath.IsAbs(target) && !strings.HasPrefix(inside, "..") {
			// go-git's checkout rewrites an absolute target to lie under
			// the checkout; show the target the repository has.
			shown = "/" + filepath.ToSlash(inside)
		}
		unsafe := func(why string) error {
			return fmt.Errorf("%w: %s -> %s (%s)", ErrUnsafeSymlink, filepath.ToSlash(rel), shown, why)
		}
		if filepath.IsAbs(target) {
			return unsafe("absolute target")
		}
		lexical := filepath.Join(filepath.Dir(rel), target)
		if lexical == ".." || strings.HasPrefix(lexical, ".."+string(filepath.Separator)) {
			return unsafe("points outside the plugin")
		}
		// Resolve through every link on the way, inside the root only.
		if _, err := r.Stat(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
				return unsafe("cannot be resolved: " + errors.Unwrap(err).Error())
			}
			return unsafe("resolves outside the plugin")
		}
		return nil
	})
}
