package plugins

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode"
)

// Item is one hook, skill or recipe found in a folder laid out as a plugin.
type Item struct {
	// Name is the unprefixed item name: the hook's file name (without
	// ".disable"), the skill's folder, the recipe's path without ".md".
	Name string
	// Path is the absolute path of the hook file, the SKILL.md or the
	// recipe file.
	Path string
	// Disabled is set for hooks whose file name ends in ".disable".
	Disabled bool
	// Link is set for hooks that are symlinks (followed by the scan).
	Link bool
}

// Skipped is a file that looks like an item but is not one, with the reason.
type Skipped struct {
	Path   string
	Reason string
}

// Contents is what a plugin folder (or a scope's standalone folders, which
// share the layout) carries. Each list is sorted by name in byte order.
type Contents struct {
	Hooks   []Item
	Skills  []Item
	Recipes []Item
	// Skipped lists files in hooks/ that cannot be hooks (not executable,
	// unsafe names) so that validate and doctor can explain them.
	Skipped []Skipped
	// Info holds what the scan learned about each item's file (by Path),
	// so that callers keying caches on size, mtime and mode need no second
	// stat.
	Info map[string]fs.FileInfo
}

// Empty reports whether the folder carries no hook, skill or recipe.
func (c Contents) Empty() bool {
	return len(c.Hooks) == 0 && len(c.Skills) == 0 && len(c.Recipes) == 0
}

// DisabledSuffix marks a hook file that is listed but never run.
const DisabledSuffix = ".disable"

// Kinds selects which item kinds a scan reads; reading only what a command
// needs keeps warm listings fast (each folder costs system calls).
type Kinds uint8

// The item kinds.
const (
	HookKind Kinds = 1 << iota
	SkillKind
	RecipeKind
	AllKinds = HookKind | SkillKind | RecipeKind
)

// ScanDir reads the layout of SPEC §2 under root: executables directly in
// hooks/, skills/<name>/SKILL.md, recipes/**/<name>.md. Names starting with
// "." are ignored everywhere, README.md is never a recipe, and nothing
// outside those three folders is looked at. Missing folders are empty.
func ScanDir(root string) (Contents, error) { return Scan(root, AllKinds) }

// Scan is ScanDir for the given kinds only; the others stay empty.
func Scan(root string, k Kinds) (Contents, error) {
	c := Contents{Info: map[string]fs.FileInfo{}}
	var err error
	if k&HookKind != 0 {
		if c.Hooks, c.Skipped, err = scanHooks(filepath.Join(root, "hooks"), c.Info); err != nil {
			return c, err
		}
	}
	if k&SkillKind != 0 {
		if c.Skills, err = scanSkills(filepath.Join(root, "skills"), c.Info); err != nil {
			return c, err
		}
	}
	if k&RecipeKind != 0 {
		if c.Recipes, err = scanRecipes(filepath.Join(root, "recipes"), c.Info); err != nil {
			return c, err
		}
	}
	return c, nil
}

func scanHooks(dir string, info map[string]fs.FileInfo) (hooks []Item, skipped []Skipped, err error) {
	entries, err := readDirIfExists(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p) // follows links; they were checked to stay inside
		if err != nil || fi.IsDir() {
			continue // subfolders and dangling links are not hooks
		}
		switch {
		case !safeItemName(name):
			skipped = append(skipped, Skipped{p, "file name contains control characters"})
		case !fi.Mode().IsRegular():
			skipped = append(skipped, Skipped{p, "not a regular file"})
		case fi.Mode()&0o111 == 0:
			skipped = append(skipped, Skipped{p, "not executable (chmod +x it to make it a hook)"})
		default:
			it := Item{Name: name, Path: p, Link: e.Type()&fs.ModeSymlink != 0}
			if base, ok := strings.CutSuffix(name, DisabledSuffix); ok && base != "" {
				it.Name, it.Disabled = base, true
			}
			hooks = append(hooks, it)
			info[p] = fi
		}
	}
	sortItems(hooks)
	return hooks, skipped, nil
}

func scanSkills(dir string, info map[string]fs.FileInfo) ([]Item, error) {
	entries, err := readDirIfExists(dir)
	if err != nil {
		return nil, err
	}
	var skills []Item
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !safeItemName(name) {
			continue
		}
		p := filepath.Join(dir, name, "SKILL.md")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			skills = append(skills, Item{Name: name, Path: p})
			info[p] = fi
		}
	}
	sortItems(skills)
	return skills, nil
}

func scanRecipes(dir string, info map[string]fs.FileInfo) ([]Item, error) {
	var recipes []Item
	// WalkDir does not follow a symlinked root; hooks/ and skills/ are read
	// through links (checked to stay inside), so recipes/ must be too.
	walkRoot := dir
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			walkRoot = resolved
		}
	}
	err := filepath.WalkDir(walkRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == walkRoot && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
				return filepath.SkipDir
			}
			return err
		}
		name := e.Name()
		if p != walkRoot && strings.HasPrefix(name, ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() || !strings.HasSuffix(name, ".md") || strings.EqualFold(name, "README.md") {
			return nil
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(walkRoot, p)
		name = filepath.ToSlash(strings.TrimSuffix(rel, ".md"))
		if !safeItemName(name) {
			return nil
		}
		recipes = append(recipes, Item{Name: name, Path: filepath.Join(dir, rel)})
		info[filepath.Join(dir, rel)] = fi
		return nil
	})
	sortItems(recipes)
	return recipes, err
}

func readDirIfExists(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	return entries, err
}

// safeItemName rejects names that would garble output or a terminal.
func safeItemName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return false
		}
	}
	return true
}

func sortItems(items []Item) {
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
}

// Names returns the names of items, never nil.
func Names(items []Item) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}
