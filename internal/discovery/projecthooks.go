package discovery

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// projectHooks lists the project's hook files from the local sources, and
// the other files of the sources with hooks (see Trust.Files); it marks
// the ones that resolve outside their plugin (or, for standalone hooks,
// the scope's .quiver folder).
func projectHooks(srcs []source) (hooks, files []ProjectHook, walked []string) {
	var out []ProjectHook
	localRoot := "" // the scope's .quiver, once a project source has hooks
	for _, s := range srcs {
		if !s.project {
			continue
		}
		c := newConfiner(s.root)
		// A standalone hook stays inside the hooks folder, which trust
		// covers whole, not merely inside .quiver: a hook linked to
		// .quiver/skills/tools/guard.py would load modules from that
		// unhashed folder (Python looks beside the file it runs first).
		hc := c
		if s.plugin.IsZero() {
			hc = &confiner{guard: plugins.NewRootGuard(filepath.Join(s.root, "hooks")), linkedDir: c.linkedDir}
		}
		escape := func(it plugins.Item) string {
			return cmp.Or(c.check(it), hc.check(it))
		}
		for _, it := range s.contents.Hooks {
			name := it.Name
			if it.Disabled {
				name += plugins.DisabledSuffix
			}
			out = append(out, ProjectHook{Name: ItemName(s.plugin, name), Path: it.Path, Escape: cmp.Or(escape(it), shebangProblem(it.Path)), Disabled: s.disabled, Linked: it.Link})
		}
		for _, sk := range s.contents.Skipped {
			out = append(out, ProjectHook{Name: ItemName(s.plugin, filepath.Base(sk.Path)), Path: sk.Path, Escape: escape(plugins.Item{Path: sk.Path, Link: true}), Disabled: s.disabled})
		}
		for _, hf := range s.contents.HookFiles {
			// The configuration stands for its handlers: what they run
			// is the rest of the folder, in files.
			out = append(out, ProjectHook{Name: ItemName(s.plugin, hf.Name), Path: hf.Path, Escape: c.check(plugins.Item{Path: hf.Path, Link: true}), Disabled: s.disabled})
		}
		hasHooks := len(s.contents.Hooks)+len(s.contents.Skipped)+len(s.contents.HookFiles) > 0
		if hasHooks || !s.plugin.IsZero() {
			// A project plugin is covered whole even without hooks: its
			// skills, commands, agents and servers reach the agents, and
			// can make them run things (SPEC §9, §16).
			files = append(files, sourceFiles(s, c, &walked)...)
		}
		if s.plugin.IsZero() {
			// So do the project's own skills and recipes; a link of
			// theirs that leaves .quiver is hashed by its target, never
			// makes the standalone hooks invalid.
			for _, f := range walkFiles(s, c, []string{filepath.Join(s.root, "skills"), filepath.Join(s.root, "recipes")}, &walked) {
				f.Root = ""
				files = append(files, f)
			}
		}
		if hasHooks || !s.plugin.IsZero() {
			// Servers and hooks alike resolve modules upwards.
			if localRoot == "" {
				localRoot = s.root
				if !s.plugin.IsZero() {
					localRoot = filepath.Dir(filepath.Dir(s.root))
				}
			}
		}
	}
	// Node resolves a hook's bare require() by walking up from its folder:
	// through .quiver/plugins/node_modules and .quiver/node_modules, which
	// no plugin or hooks folder holds. quiver never makes them, so what is
	// there came with the repository: the fingerprint covers it.
	if localRoot != "" {
		var nm []string
		for _, d := range []string{filepath.Join(localRoot, "plugins", "node_modules"), filepath.Join(localRoot, "node_modules")} {
			if _, err := os.Lstat(d); err == nil {
				nm = append(nm, d)
			}
		}
		if len(nm) > 0 {
			files = append(files, walkFiles(source{root: localRoot, project: true}, newConfiner(localRoot), nm, &walked)...)
		}
	}
	isHook := make(map[string]bool, len(out))
	for _, h := range out {
		isHook[h.Path] = true
	}
	files = slices.DeleteFunc(files, func(f ProjectHook) bool { return isHook[f.Path] })
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return out, files, walked
}

// sourceFiles lists every file of a source with hooks: the whole plugin,
// or for a scope's standalone hooks everything under hooks/. A hook may
// run or load any of them (python3 "${CLAUDE_PLUGIN_ROOT}/core/rules.py",
// a json/ package beside a Python hook that shadows the standard
// library, a lib/ the hook sources), so the fingerprint covers them all
// (SPEC §9); .git is git's, not the plugin's. A symlink is resolved by the
// confiner like a hook.
func sourceFiles(s source, c *confiner, walked *[]string) []ProjectHook {
	dirs := []string{s.root}
	if s.plugin.IsZero() {
		if len(s.contents.Hooks)+len(s.contents.Skipped)+len(s.contents.HookFiles) == 0 {
			return nil
		}
		dirs = []string{filepath.Join(s.root, "hooks")}
		for _, hf := range s.contents.HookFiles {
			if filepath.Dir(hf.Path) != dirs[0] {
				dirs = append(dirs, hf.Path)
			}
		}
	}
	return walkFiles(s, c, dirs, walked)
}

// walkFiles lists every file under dirs for the fingerprint (see
// sourceFiles), resolving links with the confiner; it adds the folders it
// read to walked.
func walkFiles(s source, c *confiner, dirs []string, walked *[]string) []ProjectHook {
	var out []ProjectHook
	seen := map[string]bool{} // resolved folders walked, so link cycles end
	var walk func(real, logical string)
	walk = func(real, logical string) {
		if seen[real] {
			return
		}
		seen[real] = true
		filepath.WalkDir(real, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(real, p)
			lp := filepath.Join(logical, rel) // the path through the links
			if e.IsDir() {
				if p != real && seen[p] {
					return filepath.SkipDir
				}
				if e.Name() == ".git" && filepath.Dir(lp) == s.root {
					return filepath.SkipDir
				}
				*walked = append(*walked, p)
				return nil
			}
			link := e.Type()&fs.ModeSymlink != 0
			if link {
				// A link to a folder is followed (WalkDir would not), so
				// the fingerprint covers what a hook reaches through it;
				// one that leaves the root makes the hooks invalid.
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					if esc := c.check(plugins.Item{Path: lp, Link: true}); esc != "" {
						out = append(out, ProjectHook{Name: itemRel(s, lp), Path: lp, Root: s.root, Disabled: s.disabled, Escape: esc})
					} else if target, err := filepath.EvalSymlinks(p); err == nil {
						walk(target, lp)
					}
					return nil
				}
			}
			out = append(out, ProjectHook{
				Name: itemRel(s, lp), Path: lp, Root: s.root, Disabled: s.disabled, Linked: link,
				Escape: c.check(plugins.Item{Path: lp, Link: link || real != logical}),
			})
			return nil
		})
	}
	for _, dir := range dirs {
		// The walk starts at the resolved folder: a linked plugin folder
		// or hooks/ is walked where it really is.
		real, err := filepath.EvalSymlinks(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(dir); errors.Is(lerr, fs.ErrNotExist) {
				continue // no such folder: nothing to cover
			}
		}
		if err == nil {
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				walk(real, dir)
				continue
			}
		}
		out = append(out, ProjectHook{Name: itemRel(s, dir), Path: dir, Root: s.root, Disabled: s.disabled,
			Escape: c.check(plugins.Item{Path: dir, Link: true})})
	}
	return out
}

// itemRel names a file of a source by its path in the source's folder.
func itemRel(s source, p string) string {
	rel, _ := filepath.Rel(s.root, p)
	return ItemName(s.plugin, filepath.ToSlash(rel))
}

// shebangProblem refuses a hook whose #! line could run or load a file
// of the working directory (which the payload's cwd chooses, and which
// the fingerprint does not cover): an interpreter named by a relative
// path ("#!bin/sh", "#!/usr/bin/env ./tool"), or any argument that is
// not a plain flag ("#!/bin/sh ./run", "#!/usr/bin/env -S bash ./x",
// "#!/usr/bin/env -S python3 -m mod"). The rule, in docs/security.md:
// the interpreter is an absolute path, or /usr/bin/env (any absolute
// env) with an optional -S and a program name without '/'; every word
// after it is a flag (see plainFlag). Anything else makes the hook
// invalid, which costs a legitimate hook one wrapper script at most.
func shebangProblem(path string) string {
	f, err := safefs.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, found := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	if !found && n == len(buf) {
		return "its #! line is longer than 255 bytes; the kernel would cut it where quiver cannot check it"
	}
	words := strings.Fields(rest)
	if len(words) == 0 {
		return ""
	}
	interp, args := words[0], words[1:]
	if filepath.IsAbs(interp) && filepath.Base(interp) == "env" {
		// env's options could name a folder (-C), a program path (-P),
		// an assignment (LD_PRELOAD=./x) or split the rest again (-S):
		// only a bare -S is allowed, then the program, looked up in PATH
		// like any command.
		if len(args) > 0 && args[0] == "-S" {
			args = args[1:]
		}
		if len(args) == 0 {
			return "its #! line runs env without a program"
		}
		interp, args = args[0], args[1:]
		if strings.HasPrefix(interp, "-") || strings.Contains(interp, "=") {
			return fmt.Sprintf("its #! line gives env the option or assignment %q; a project hook may use only #!/usr/bin/env [-S] PROGRAM [-flags]", interp)
		}
		if !strings.Contains(interp, "/") && !strings.HasPrefix(interp, ".") {
			interp = "" // looked up in PATH, like any command
		}
	}
	if interp != "" && !filepath.IsAbs(interp) {
		return fmt.Sprintf("its #! line names the interpreter %s by a relative path, which would run a file of the working directory that trust does not cover; write an absolute path (#!/usr/bin/env %s)", interp, filepath.Base(interp))
	}
	for _, a := range args {
		if !plainFlag(a) {
			return fmt.Sprintf("its #! line passes %q to the interpreter; a project hook's #! line may hold only the interpreter and plain flags, since an argument could run or load a file of the working directory that trust does not cover", a)
		}
	}
	return ""
}

// plainFlag reports whether a #! argument is a flag that names no file:
// a dash, then letters, digits and dashes only (no '/', '.', '=', quote
// or '$', so no path, assignment or env -S expansion), and none of the
// options that load code or change folder by a name glued to them
// (python -mMOD, perl -MMOD/-mMOD/-IDIR, ruby -rLIB/-IDIR/-CDIR), which
// may only end a cluster. A bare word is never a flag: after "-m" or
// "-r" it is a module name, elsewhere it may be a script.
func plainFlag(w string) bool {
	body, ok := strings.CutPrefix(w, "-")
	if !ok || body == "" {
		return false
	}
	long := strings.HasPrefix(body, "-")
	for i, r := range body {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
		default:
			return false
		}
		if !long && strings.ContainsRune("mMrIC", r) && i != len(body)-1 {
			return false
		}
	}
	return true
}

// confiner decides whether hooks stay inside their root: the plugin
// folder, or the scope's .quiver folder for standalone hooks. A hook that
// is a symlink, or lies in a hooks/ folder that is one, is resolved; one
// whose file lies outside the (resolved) root is refused, because the
// fingerprint would hash a file the project does not own, such as
// /bin/sh, whose behaviour depends on files it never covers.
type confiner struct {
	guard     *plugins.RootGuard
	linkedDir bool // hooks/ is itself a symlink
}

func newConfiner(root string) *confiner {
	c := &confiner{guard: plugins.NewRootGuard(root)}
	if fi, err := os.Lstat(filepath.Join(root, "hooks")); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		c.linkedDir = true
	}
	return c
}

// check returns why the item escapes its root, or "" when it stays inside.
// A plain file in a plain hooks/ folder needs no system call.
func (c *confiner) check(it plugins.Item) string {
	if !it.Link && !c.linkedDir {
		return ""
	}
	if esc := c.guard.Escape(it.Path); esc != "" {
		return esc + "; project hooks must be files inside it, so the fingerprint covers what runs"
	}
	return ""
}
