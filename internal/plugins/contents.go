package plugins

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"unicode"

	"github.com/quiver-cli/quiver/internal/safefs"
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
	// Command is set for recipes read from a Claude-format commands/
	// folder (SPEC §11), which agents show as the plugin's commands.
	Command bool
	// Escape says why a skill or recipe is not read: with Confine, a
	// symlink that leads out of the scanned folder (or a linked skills/
	// or recipes/ folder that does, then standing for all of it).
	Escape string
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
	// HookFiles are the Claude-format hook configurations (SPEC §11):
	// hooks/hooks.json and what the manifest names. A hooks/ folder with
	// a hooks.json contributes no native hooks.
	HookFiles []HookFile
	// ClaudeHooks is set when hooks/ has a hooks.json: its files are
	// the handlers' scripts, which trust must cover as a whole.
	ClaudeHooks bool
	// Manifest is the plugin's .claude-plugin/plugin.json, if any, and
	// ManifestErr why it could not be read (the defaults apply then).
	Manifest    *ClaudeManifest
	ManifestErr error
	// CommandClashes names commands/ files that a recipe of the same
	// name hides (recipes/ wins; validate warns).
	CommandClashes []string
	// Info holds what the scan learned about each item's file (by Path),
	// so that callers keying caches on size, mtime and mode need no second
	// stat.
	Info map[string]fs.FileInfo
}

// Empty reports whether the folder carries no hook, skill or recipe.
func (c Contents) Empty() bool {
	return len(c.Hooks) == 0 && len(c.Skills) == 0 && len(c.Recipes) == 0 && len(c.HookFiles) == 0
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
	// Confine makes skills and recipes that resolve outside the scanned
	// folder Escape items that are never read: for the project's files
	// and plugins, whose symlinks the repository chose. The user's own
	// standalone folders may link anywhere.
	Confine Kinds = 1 << 7
)

// ScanDir reads the layout of SPEC §2 under root: executables directly in
// hooks/, skills/<name>/SKILL.md, recipes/**/<name>.md; and the Claude
// format of SPEC §11: hooks/hooks.json (then hooks/ has no native hooks),
// commands/**/<name>.md as recipes, and the component paths of
// .claude-plugin/plugin.json. Names starting with "." are ignored
// everywhere, README.md is never a recipe, and nothing outside those
// folders is looked at. Missing folders are empty.
func ScanDir(root string) (Contents, error) { return Scan(root, AllKinds) }

// Scan is ScanDir for the given kinds only; the others stay empty.
func Scan(root string, k Kinds) (Contents, error) { return ScanWith(root, k, nil) }

// Dirs lists folders for a scan. Discovery passes its directory index,
// which answers an unchanged folder from a cache with one stat instead of
// open, getdents and close; nil reads every folder.
type Dirs interface {
	// ReadDir is os.ReadDir, except that a path that is not a folder
	// (a file, a FIFO) fails with ENOTDIR without being opened.
	ReadDir(dir string) ([]fs.DirEntry, error)
	// Lstat is os.Lstat.
	Lstat(path string) (fs.FileInfo, error)
}

// SharedDirs is a Dirs that several goroutines can scan through at once:
// Fork returns one goroutine's view, and the views share what each
// learns. ListPluginsWith reads plugins in parallel only through nil
// Dirs or a SharedDirs; any other Dirs is used by one goroutine.
type SharedDirs interface {
	Dirs
	Fork() Dirs
}

// listing is one folder as a scan sees it through Dirs: its entries by
// name, or known is false when it could not be listed (the scan then
// asks the file system itself, as it does without Dirs).
type listing struct {
	known   bool
	entries []fs.DirEntry // sorted by name
}

// entry returns the type bits of the entry called name.
func (l listing) entry(name string) (fs.FileMode, bool) {
	i, ok := slices.BinarySearchFunc(l.entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
	if !ok {
		return 0, false
	}
	return l.entries[i].Type(), true
}

func listDir(d Dirs, dir string) listing {
	if d == nil {
		return listing{}
	}
	entries, err := d.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return listing{known: true}
		}
		return listing{}
	}
	return listing{known: true, entries: entries}
}

// lacks reports that the folder is known to hold none of names.
func (l listing) lacks(names ...string) bool {
	if !l.known {
		return false
	}
	for _, n := range names {
		if _, ok := l.entry(n); ok {
			return false
		}
	}
	return true
}

// ScanWith is Scan reading folders through d (nil: directly). The result
// is the same either way; d only saves system calls.
func ScanWith(root string, k Kinds, d Dirs) (Contents, error) {
	c := Contents{Info: map[string]fs.FileInfo{}}
	top := listDir(d, root)
	var m ClaudeManifest
	if !top.lacks(".claude-plugin", EntryManifestPath) {
		var ok bool
		var err error
		m, ok, err = ReadClaudeManifest(root)
		if ok {
			c.Manifest, c.ManifestErr = &m, err
			if err != nil {
				m = ClaudeManifest{} // a broken manifest: the default folders
			}
		}
	}
	var err error
	if k&HookKind != 0 && !top.lacks("hooks") {
		hooksDir := filepath.Join(root, "hooks")
		var entries []os.DirEntry
		known := false
		if d != nil {
			entries, err = d.ReadDir(hooksDir)
			known = err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
		}
		hasJSON := !known || slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == HooksJSON })
		var fi fs.FileInfo
		if hasJSON {
			fi, err = os.Stat(filepath.Join(hooksDir, HooksJSON))
		}
		if hasJSON && err == nil && !fi.IsDir() {
			c.ClaudeHooks = true
			c.HookFiles = append(c.HookFiles, HookFile{Name: HooksJSON, Path: filepath.Join(hooksDir, HooksJSON)})
		} else {
			if !known {
				if entries, err = readDirIfExists(hooksDir); err != nil {
					return c, err
				}
			}
			c.Hooks, c.Skipped = scanHooks(hooksDir, entries, c.Info)
		}
	}
	if k&HookKind != 0 {
		for _, p := range m.HookPaths {
			if p == "hooks/"+HooksJSON && c.ClaudeHooks {
				continue
			}
			c.HookFiles = append(c.HookFiles, HookFile{Name: strings.TrimPrefix(p, "hooks/"), Path: filepath.Join(root, filepath.FromSlash(p))})
		}
		if m.Hooks != nil {
			name := HooksJSON
			if len(c.HookFiles) > 0 {
				name = "plugin.json"
			}
			c.HookFiles = append(c.HookFiles, HookFile{Name: name, Path: filepath.Join(root, filepath.FromSlash(m.HooksFile)), Inline: m.Hooks})
		}
	}
	var guard *RootGuard
	if k&Confine != 0 {
		guard = NewRootGuard(root)
	}
	sc := scanner{dirs: d, top: top, root: root, info: c.Info, guard: guard}
	if k&SkillKind != 0 {
		for _, dir := range orDefault(m.Skills, "skills") {
			full := filepath.Join(root, filepath.FromSlash(dir))
			var skills []Item
			if len(m.Skills) == 0 {
				skills, err = sc.skills(full)
			} else if _, lerr := os.Lstat(filepath.Join(full, "SKILL.md")); lerr == nil {
				// A manifest may name a skill's own folder, as Claude
				// Code reads it ("skills": ["./review"]): read its
				// parent, keeping that one skill.
				skills, err = sc.skills(filepath.Dir(full))
				skills = slices.DeleteFunc(skills, func(it Item) bool { return it.Name != filepath.Base(full) })
			} else {
				skills, err = sc.skills(full)
			}
			if err != nil {
				return c, err
			}
			c.Skills = mergeItems(c.Skills, skills, nil)
		}
	}
	if k&RecipeKind != 0 {
		if c.Recipes, err = sc.recipes(filepath.Join(root, "recipes")); err != nil {
			return c, err
		}
		for _, dir := range orDefault(m.Commands, "commands") {
			commands, err := sc.recipes(filepath.Join(root, filepath.FromSlash(dir)))
			if err != nil {
				return c, err
			}
			for i := range commands {
				commands[i].Command = true
			}
			c.Recipes = mergeItems(c.Recipes, commands, &c.CommandClashes)
		}
	}
	return c, nil
}

func orDefault(paths []string, def string) []string {
	if len(paths) == 0 {
		return []string{def}
	}
	return paths
}

// mergeItems adds more to items; a name items already has wins, and the
// hidden one's path is noted in clashes.
func mergeItems(items, more []Item, clashes *[]string) []Item {
	if len(more) == 0 {
		return items
	}
	if len(items) == 0 {
		// The first folder (the usual case): one folder's names are
		// unique already.
		sortItems(more)
		return more
	}
	have := make(map[string]bool, len(items))
	for _, it := range items {
		have[it.Name] = true
	}
	for _, it := range more {
		if have[it.Name] {
			if clashes != nil {
				*clashes = append(*clashes, it.Path)
			}
			continue
		}
		have[it.Name] = true
		items = append(items, it)
	}
	sortItems(items)
	return items
}

// scanner reads the skill and recipe folders of one scan.
type scanner struct {
	dirs  Dirs
	top   listing // the scanned folder's own entries
	root  string
	info  map[string]fs.FileInfo
	guard *RootGuard
}

// readDir lists a folder through the index, or directly; a missing one
// is empty.
func (sc scanner) readDir(dir string) ([]os.DirEntry, error) {
	if sc.dirs == nil {
		return readDirIfExists(dir)
	}
	entries, err := sc.dirs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	return entries, err
}

// lstat answers from the scanned folder's listing, for its direct
// entries, whether p exists; known is false unless p is missing or a
// plain folder (then no system call is needed to know what it is).
func (sc scanner) lstat(p string) (exists, known bool) {
	if sc.top.known && filepath.Dir(p) == sc.root {
		t, ok := sc.top.entry(filepath.Base(p))
		if !ok {
			return false, true
		}
		if t == fs.ModeDir {
			return true, true
		}
	}
	return false, false
}

func scanHooks(dir string, entries []os.DirEntry, info map[string]fs.FileInfo) (hooks []Item, skipped []Skipped) {
	hooks = make([]Item, 0, len(entries))
	// One slice of stats for the folder, not a record per file (the
	// hooks of every plugin are stat'ed at every event).
	stats := make([]safefs.Info, len(entries))
	for i, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		fi := &stats[i]
		err := safefs.Stat(p, fi) // follows links; they were checked to stay inside
		if err != nil || fi.IsDir() {
			continue // subfolders and dangling links are not hooks
		}
		switch {
		case !safeItemName(name):
			skipped = append(skipped, Skipped{p, "file name contains control or invisible formatting characters"})
		case strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0:
			// Unicode has look-alikes without end (a Cyrillic і, a
			// combining joiner, a Hangul filler): a hook, which trust
			// lists for review, is named in printable ASCII, like
			// plugins are.
			skipped = append(skipped, Skipped{p, "a hook's file name must be printable ASCII, so that trust shows exactly what runs"})
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
	if len(hooks) == 0 {
		hooks = nil // as before it was sized: none is nil
	}
	sortItems(hooks)
	return hooks, skipped
}

// linkedDir reports whether dir is a symlink; with a guard, one that
// leads out of its root comes back as the Escape item standing for the
// whole folder, which is then not read.
//
// A manifest may name a folder several levels down ("docs/commands"),
// and any of those levels may be a link: such a path is resolved whole.
func (sc scanner) linkedDir(dir string) (bool, *Item) {
	guard := sc.guard
	if _, known := sc.lstat(dir); known {
		// Missing, or a plain folder directly in the root: the listing
		// says so, and the guard has nothing to check there.
		return false, nil
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return false, nil
	}
	if guard != nil && filepath.Dir(dir) != guard.Root() {
		if esc := guard.Escape(dir); esc != "" {
			return true, &Item{Name: filepath.Base(dir), Path: dir, Escape: esc}
		}
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return false, nil
	}
	if guard != nil {
		if esc := guard.Escape(dir); esc != "" {
			return true, &Item{Name: filepath.Base(dir), Path: dir, Escape: esc}
		}
	}
	return true, nil
}

func (sc scanner) skills(dir string) ([]Item, error) {
	info, guard := sc.info, sc.guard
	dirLink, escaped := sc.linkedDir(dir)
	if escaped != nil {
		return []Item{*escaped}, nil
	}
	entries, err := sc.readDir(dir)
	if err != nil {
		return nil, err
	}
	var skills []Item
	stats := make([]safefs.Info, len(entries)) // as scanHooks
	for i, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !safeItemName(name) {
			continue
		}
		p := filepath.Join(dir, name, "SKILL.md")
		// Lstat is all a plain file needs; a link is followed, and
		// checked when the folder is confined.
		fi := &stats[i]
		err := safefs.Lstat(p, fi)
		link := dirLink || e.Type()&fs.ModeSymlink != 0
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			link = true
			err = safefs.Stat(p, fi)
		}
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		it := Item{Name: name, Path: p, Link: link}
		if link && guard != nil {
			it.Escape = guard.Escape(p)
		}
		skills = append(skills, it)
		info[p] = fi
	}
	sortItems(skills)
	return skills, nil
}

func (sc scanner) recipes(dir string) ([]Item, error) {
	info, guard := sc.info, sc.guard
	dirLink, escaped := sc.linkedDir(dir)
	if escaped != nil {
		return []Item{*escaped}, nil
	}
	// A manifest may name one command file instead of a folder.
	exists, known := sc.lstat(dir)
	if known && !exists {
		return nil, nil
	}
	if fi, err := os.Stat(dir); !known && err == nil && fi.Mode().IsRegular() {
		name := strings.TrimSuffix(filepath.Base(dir), ".md")
		if !strings.HasSuffix(dir, ".md") || !safeItemName(name) {
			return nil, nil
		}
		info[dir] = fi
		return []Item{{Name: name, Path: dir, Link: dirLink}}, nil
	}
	var recipes []Item
	// WalkDir does not follow a symlinked root; hooks/ and skills/ are read
	// through links (checked to stay inside), so recipes/ must be too.
	walkRoot := dir
	if dirLink {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			walkRoot = resolved
		}
	}
	err := sc.walk(walkRoot, func(p string, e fs.DirEntry) {
		name := e.Name()
		if !strings.HasSuffix(name, ".md") || strings.EqualFold(name, "README.md") {
			return
		}
		fi := new(safefs.Info)
		if err := safefs.Stat(p, fi); err != nil || !fi.Mode().IsRegular() {
			return
		}
		rel, _ := filepath.Rel(walkRoot, p)
		name = filepath.ToSlash(strings.TrimSuffix(rel, ".md"))
		if !safeItemName(name) {
			return
		}
		it := Item{Name: name, Path: filepath.Join(dir, rel), Link: e.Type()&fs.ModeSymlink != 0}
		if it.Link && guard != nil {
			it.Escape = guard.Escape(it.Path)
		}
		recipes = append(recipes, it)
		info[it.Path] = fi
	})
	sortItems(recipes)
	return recipes, err
}

// walk visits every file under root that is not a folder, skipping names
// that start with ".", as filepath.WalkDir would (links are not
// followed): a missing root is empty, a folder that cannot be read is an
// error.
func (sc scanner) walk(root string, visit func(p string, e fs.DirEntry)) error {
	if sc.dirs == nil {
		// The root is checked first, so a FIFO is never opened.
		fi, err := os.Lstat(root)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return nil
		}
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		var entries []os.DirEntry
		var err error
		if sc.dirs != nil {
			entries, err = sc.dirs.ReadDir(dir)
			if dir == root && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
				return nil
			}
		} else {
			entries, err = os.ReadDir(dir)
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				if err := walk(p); err != nil {
					return err
				}
				continue
			}
			visit(p, e)
		}
		return nil
	}
	return walk(root)
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
	return strings.IndexFunc(s, safefs.Deceptive) < 0 && !strings.ContainsRune(s, unicode.ReplacementChar)
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
