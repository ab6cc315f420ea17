package wiring

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Item is a skill or recipe an agent should see.
type Item struct {
	// Name is the full quiver name (acme/guard/review); Own is the
	// item's own name (review; for recipes a path such as ops/deploy).
	Name, Own string
	// Path is the skill folder or recipe file (absolute).
	Path string
	// Copy: the agent gets a copy of it, not a link (a project plugin's
	// items, which trust covers; see copies.go). Root is the folder the
	// copy may follow links within (the plugin's).
	Copy bool
	Root string
	// Render, when set, makes the item a file quiver generates (a
	// command or subagent translated into the agent's format): called
	// with the name the file gets (without its suffix), it returns the
	// content. Path is then the source, for messages.
	Render func(name string) ([]byte, error)
	// Rename, when set, is asked for the name the item is placed under
	// when that is not its own (a clash put it under its full name): the
	// file of the item (relative to it) that names it, rewritten to that
	// name, when the two differ (ok). The item then reaches the
	// agent as a copy with that file replaced: a skill placed as
	// acme-guard-review when another plugin's review took review keeps
	// the name the agent lists it by apart (agents key skills on the
	// name in SKILL.md, not on the folder).
	Rename func(name string) (rel string, data []byte, ok bool)
}

// LinkDir is a folder of the agent's where one kind of item goes.
type LinkDir struct {
	// Dir is relative to the base folder: ".claude/skills".
	Dir string
	// Suffix is added to each link's name (".md" for recipe files).
	Suffix string
	Items  []Item
}

// SyncLinks makes the links quiver keeps under base match dirs: a link
// per item, named by the item's own name ("/" becomes "-"), or by its
// full name when two items would share one or when the name is taken by
// a file quiver did not make. It creates, updates and removes only links
// it recorded (prev) and finds still as it made them; anything else in
// those folders, such as a user's own skill of the same name, is never
// touched. It returns the links now kept, and a warning for each item it
// could not link.
func SyncLinks(base string, dirs []LinkDir, prev []Link) (kept []Link, warnings []string, err error) {
	type want struct {
		target, item string
		// copy: the item's path and folder, and the hash its copy has.
		copy       bool
		from, root string
		hash       string
		// data is a generated file's content; over, a file of a copy
		// written with other content (Item.Rename).
		data []byte
		over *override
	}
	wanted := map[string]want{}
	var order []string
	taken := func(rel string) bool {
		_, ok := wanted[rel]
		return ok
	}
	prevAt := map[string]Link{}
	for _, l := range prev {
		prevAt[l.Path] = l
	}
	for _, d := range dirs {
		count := map[string]int{}
		for _, it := range d.Items {
			count[flat(it.Own)]++
		}
		items := append([]Item(nil), d.Items...)
		sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
		for _, it := range items {
			names := []string{flat(it.Name)}
			if count[flat(it.Own)] == 1 {
				names = []string{flat(it.Own), flat(it.Name)}
			}
			placed := false
			for _, n := range names {
				rel := filepath.ToSlash(filepath.Join(d.Dir, n+d.Suffix))
				if taken(rel) {
					continue
				}
				var w want
				switch {
				case it.Render != nil:
					data, err := it.Render(n)
					if err != nil {
						warnings = append(warnings, fmt.Sprintf("%s is not written into %s: %v", it.Name, d.Dir, err))
						placed = true
					}
					w = want{item: it.Name, copy: true, data: data, hash: dataHash(data)}
				case it.Copy || renamed(it, n) != nil:
					over := renamed(it, n)
					root := it.Root
					if root == "" {
						root = it.Path
					}
					sum, err := itemHashOver(it.Path, root, over)
					if err != nil {
						warnings = append(warnings, fmt.Sprintf("%s is not copied into %s: %v", it.Name, d.Dir, err))
						placed = true
					}
					w = want{item: it.Name, copy: true, from: it.Path, root: root, hash: sum, over: over}
				default:
					target := it.Path
					if r, err := filepath.Rel(filepath.Join(base, filepath.Dir(rel)), it.Path); err == nil {
						target = r
					}
					w = want{target: target, item: it.Name}
				}
				if placed {
					break
				}
				if _, err := os.Lstat(filepath.Join(base, rel)); err == nil {
					if l, ours := prevAt[rel]; !ours || !isOurs(base, l) {
						// A file that is exactly what quiver would put
						// there is quiver's, whoever's record says so (a
						// teammate's clone, issue 43); anything else is
						// someone else's and never touched.
						as := Link{Path: rel, Target: w.target, Hash: w.hash, Item: it.Name}
						if !isOurs(base, as) {
							continue
						}
						prevAt[rel] = as
					}
				}
				wanted[rel] = w
				order = append(order, rel)
				placed = true
				break
			}
			if !placed {
				warnings = append(warnings, fmt.Sprintf("%s is not linked into %s: %s and %s are taken by files quiver did not make",
					it.Name, d.Dir, flat(it.Own)+d.Suffix, flat(it.Name)+d.Suffix))
			}
		}
	}
	same := func(w want, l Link) bool {
		return w.target == l.Target && w.hash == l.Hash
	}
	// Remove what is no longer wanted, or wanted elsewhere, or changed.
	for _, l := range prev {
		w, ok := wanted[l.Path]
		if ok && same(w, l) && isOurs(base, l) {
			continue
		}
		if isOurs(base, l) {
			if err := SafeParents(base, l.Path, false); err != nil {
				return nil, warnings, err
			}
			remove := func() error { return os.Remove(filepath.Join(base, l.Path)) }
			if l.Hash != "" {
				remove = func() error { return removeCopy(base, l) }
			}
			if err := remove(); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, warnings, fmt.Errorf("remove %s: %w", l.Path, err)
			}
		} else if l.Hash != "" {
			if _, err := os.Lstat(filepath.Join(base, l.Path)); err == nil && !(ok && w.copy) {
				warnings = append(warnings, fmt.Sprintf("%s was edited since quiver copied it there, so it is yours now and stays", l.Path))
			}
		}
	}
	for _, rel := range order {
		w := wanted[rel]
		l := Link{Path: rel, Target: w.target, Hash: w.hash, Item: w.item}
		if p, ok := prevAt[rel]; ok && same(w, p) && isOurs(base, p) {
			kept = append(kept, l)
			continue
		}
		if err := SafeParents(base, rel, true); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s is not linked: %v", w.item, err))
			continue
		}
		if w.copy {
			if _, err := os.Lstat(filepath.Join(base, rel)); err == nil {
				warnings = append(warnings, fmt.Sprintf("%s is not copied: %s is taken", w.item, rel))
				continue
			}
			copy := func() (string, error) { return copyItemOver(w.from, w.root, filepath.Join(base, rel), w.over) }
			if w.data != nil {
				copy = func() (string, error) { return w.hash, writeGenerated(filepath.Join(base, rel), w.data) }
			}
			sum, err := copy()
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s is not copied: %v", w.item, err))
				continue
			}
			l.Hash = sum
			kept = append(kept, l)
			continue
		}
		if err := os.Symlink(w.target, filepath.Join(base, rel)); err != nil {
			if errors.Is(err, fs.ErrExist) {
				warnings = append(warnings, fmt.Sprintf("%s is not linked: %s appeared meanwhile", w.item, rel))
				continue
			}
			// One link that cannot be made (a name too long for the
			// file system) must not orphan the others.
			warnings = append(warnings, fmt.Sprintf("%s is not linked: %v", w.item, err))
			continue
		}
		kept = append(kept, l)
	}
	return kept, warnings, nil
}

// RemoveLinks removes the recorded links that are still as quiver made
// them.
func RemoveLinks(base string, links []Link) error {
	_, _, err := SyncLinks(base, nil, links)
	return err
}

// renamed is the file of it to rewrite when it is placed as name, nil
// when none (Item.Rename).
func renamed(it Item, name string) *override {
	if it.Rename == nil || name == flat(it.Own) {
		return nil // placed under its own name: its file as the author wrote it
	}
	rel, data, ok := it.Rename(name)
	if !ok {
		return nil
	}
	return &override{rel: filepath.FromSlash(rel), data: data}
}

// flat turns a name into one file name: "/" becomes "-".
func flat(name string) string { return strings.ReplaceAll(name, "/", "-") }

// Intact reports whether what l records is still as quiver made it (the
// link, or the copy): only then does it count as quiver's, for this
// agent or another.
func Intact(base string, l Link) bool { return isOurs(base, l) }

// isOurs reports whether what l records is still as quiver made it: the
// link, or the copy.
func isOurs(base string, l Link) bool {
	if l.Hash != "" {
		return isOurCopy(base, l)
	}
	return isOurLink(base, l)
}

// isOurLink reports whether l is still the symbolic link quiver made: a
// link (not a file or folder someone put there) with the recorded target.
func isOurLink(base string, l Link) bool {
	p := filepath.Join(base, l.Path)
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	t, err := os.Readlink(p)
	return err == nil && t == l.Target
}

// SafeParents checks that every folder from base down to rel's parent is
// a real folder, not a link that would take the write elsewhere (a
// repository may commit .claude as a link); create makes missing ones.
func SafeParents(base, rel string, create bool) error {
	dir := base
	parts := strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/")
	for _, part := range parts {
		if part == "." || part == "" {
			continue
		}
		if part == ".." {
			return fmt.Errorf("link path %s leaves %s", rel, base)
		}
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist) && create:
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("%s is %s, not a folder; quiver will not write through it", dir, kindOf(fi.Mode()))
		}
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "a symbolic link"
	}
	return "a file"
}
