package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// TrustFile is the name of the trust store in the global root.
const TrustFile = "trust.yaml"

// ProjectHook is one file that counts as a project hook for trust: every
// non-hidden file directly in .quiver/hooks/ or in the hooks/ of a local
// plugin, executable or not (making one executable is a change).
type ProjectHook struct {
	Name string // full item name, as hook list shows it
	Path string
	// Escape says why the hook is invalid when it resolves (through a
	// symlink) to a file outside its plugin or the scope's .quiver
	// folder: the fingerprint could not cover what would run.
	Escape string
	// Disabled: the hook's plugin is disabled (the lock file says so).
	// Enabling it is a change the user must review, like a new file.
	Disabled bool
	// Root is set for the other files of a source with hooks (Trust.Files):
	// the plugin's folder, or the scope's for standalone hooks.
	Root string
	// Linked: the file itself is a symlink, so what it holds may change
	// in a folder no watch covers (a Session stats it at every call).
	Linked bool
}

// Trust is the trust state of a project.
type Trust struct {
	// Project is the project directory the record is keyed by.
	Project string
	// Hooks are the project's hooks, by path.
	Hooks []ProjectHook
	// Files are the other files those hooks may run or load: every
	// file of a project plugin that has hooks (its lib/, a Python
	// package beside a hook, the scripts of a hooks.json) and everything
	// under .quiver/hooks/ (subfolders, hidden files). The fingerprint
	// covers them too; one that escapes its folder makes all of that
	// source's hooks invalid.
	Files []ProjectHook
	// Replaces names the project's plugins that shadow the user's global
	// install of the same plugin as a whole: even without hooks of their
	// own, they switch the user's global hooks off, so that is the
	// repository's choice to review like a hook.
	Replaces []string
	// Shadows names the user's global standalone hooks that a project
	// hook of the same name switches off once trusted: trust says so,
	// since that changes what the user's own set does here.
	Shadows []string
	// Fingerprint covers path, exec bit and content of every project hook;
	// "" when there are none.
	Fingerprint string
	// Recorded is the fingerprint in the trust store, "" if none.
	Recorded string
	// All is set by QUIVER_TRUST_ALL=1.
	All bool
	// Items are the project's hook items as hook list names them (set
	// by ProjectTrust, not on a hook run's path).
	Items []ProjectItem

	// parts are the lines Fingerprint was computed from, for RenewTrust.
	parts []trustPart
	// walked are the folders the listing of Files read (resolved), which
	// a Session watches: a file added to any of them changes the
	// fingerprint.
	walked []string
}

// Trusted reports whether the project's hooks may be queried and run: the
// user trusts everything, or the project has no hooks, or they are exactly
// the ones the user reviewed.
func (t Trust) Trusted() bool {
	return t.All || t.Empty() || (t.Recorded != "" && t.Recorded == t.Fingerprint)
}

// Empty reports a project that changes nothing about which hooks run: no
// project hooks, and no plugin that replaces a global one.
func (t Trust) Empty() bool { return len(t.Hooks) == 0 && len(t.Replaces) == 0 }

type trustStore struct {
	Version  int                    `yaml:"version"`
	Projects map[string]trustRecord `yaml:"projects"`
}

// trustRecord is one trusted project. It holds no list of the hooks: the
// fingerprint covers them, and a list would let one repository with
// thousands of long hook names grow the store past any bound (records
// written by older versions keep theirs until the store is next written,
// since unknown fields are dropped).
type trustRecord struct {
	Fingerprint string    `yaml:"fingerprint"`
	TrustedAt   time.Time `yaml:"trusted_at"`
}

// maxTrustStore bounds the trust store: one record is about 150 bytes, so
// this is room for some 100,000 projects.
const maxTrustStore = 16 << 20

func trustPath(l plugins.Layout) string { return filepath.Join(l.Global.Root, TrustFile) }

func readTrustStore(path string) (*trustStore, error) {
	ts := &trustStore{Version: 1, Projects: map[string]trustRecord{}}
	data, err := safefs.ReadFile(path, maxTrustStore)
	if errors.Is(err, fs.ErrNotExist) {
		return ts, nil
	}
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(data, ts); err != nil {
		return nil, fmt.Errorf("trust store %s is corrupt (%v); delete it and run quiver trust again", path, err)
	}
	if ts.Projects == nil {
		ts.Projects = map[string]trustRecord{}
	}
	return ts, nil
}

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
			return firstNonEmpty(c.check(it), hc.check(it))
		}
		for _, it := range s.contents.Hooks {
			name := it.Name
			if it.Disabled {
				name += plugins.DisabledSuffix
			}
			out = append(out, ProjectHook{Name: ItemName(s.plugin, name), Path: it.Path, Escape: firstNonEmpty(escape(it), shebangProblem(it.Path)), Disabled: s.disabled, Linked: it.Link})
		}
		for _, sk := range s.contents.Skipped {
			out = append(out, ProjectHook{Name: ItemName(s.plugin, filepath.Base(sk.Path)), Path: sk.Path, Escape: escape(plugins.Item{Path: sk.Path, Link: true}), Disabled: s.disabled})
		}
		for _, hf := range s.contents.HookFiles {
			// The configuration stands for its handlers: what they run
			// is the rest of the folder, in files.
			out = append(out, ProjectHook{Name: ItemName(s.plugin, hf.Name), Path: hf.Path, Escape: c.check(plugins.Item{Path: hf.Path, Link: true}), Disabled: s.disabled})
		}
		if len(s.contents.Hooks)+len(s.contents.Skipped)+len(s.contents.HookFiles) > 0 {
			files = append(files, sourceFiles(s, c, &walked)...)
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

// fingerprint covers everything the repository decides about what runs:
// path (relative to the project), exec bit and content of each project
// hook, reading only regular files (with the content limit: a hook that
// escapes its root is hashed by its link target, never followed, and a
// FIFO or device by its kind, never opened); the project's plugins that
// replace a global install; and where the project's lock file says each
// of its plugins comes from (source, ref, commit, hash, the folder inside
// the source and the marketplace), so that a pull that points
// an installed plugin elsewhere asks again before an update fetches it.
func fingerprint(project string, t Trust, lock *plugins.Lock, hc *hashCache) (string, []trustPart, error) {
	if t.Empty() {
		return "", nil, nil
	}
	parts, err := fingerprintParts(project, t, lock, hc)
	if err != nil {
		return "", nil, err
	}
	return hashParts(parts), parts, nil
}

// trustPart is one line of the fingerprint, keyed by what it is about:
// "lock NAME", "replaces NAME" or "file PATH" (relative to the project).
type trustPart struct {
	key, line string
}

// hashParts is the fingerprint of its lines, in order.
func hashParts(parts []trustPart) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p.line))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// fingerprintParts lists the fingerprint's lines (see fingerprint).
func fingerprintParts(project string, t Trust, lock *plugins.Lock, hc *hashCache) ([]trustPart, error) {
	var parts []trustPart
	// Every field is written with its length first, so no value can
	// imitate a field boundary: two different states never hash alike.
	field := func(key string, fields ...string) {
		var b strings.Builder
		for _, p := range fields {
			fmt.Fprintf(&b, "%d:%s", len(p), p)
		}
		b.WriteByte('\n')
		parts = append(parts, trustPart{key: key, line: b.String()})
	}
	for _, name := range lock.Names() {
		e := lock.Plugins[name]
		fields := []string{"lock", name, e.Source, e.Ref, e.Commit, e.Hash, strconv.FormatBool(e.Link)}
		// The folder inside the source, and the marketplace it came
		// from, decide what an update fetches just as the source does.
		// They are added only when set, so the records of projects whose
		// lock has neither stay valid; the length prefixes keep the two
		// shapes apart.
		if e.Path != "" || e.Marketplace != "" {
			fields = append(fields, e.Path, e.Marketplace)
		}
		field("lock "+name, fields...)
	}
	for _, name := range t.Replaces {
		field("replaces "+name, "replaces", name)
	}
	for _, ph := range slices.Concat(t.Hooks, t.Files) {
		line, err := fingerprintLine(ph, hc)
		// A plugin being replaced or removed right now may take a file
		// away between the scan and here: it then simply is not part of
		// the fingerprint (which therefore differs: untrusted, the safe
		// side), rather than failing the agent's hook run.
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(project, ph.Path)
		rel = filepath.ToSlash(rel)
		field("file "+rel, "file", rel, line, strconv.FormatBool(ph.Disabled))
	}
	return parts, nil
}

// fingerprintLine is "<x|->\x00<sha256 of content>" for a regular file (a
// plugin's hooks before contract v2 hash exactly so), "l\x00<target>" for a
// link that escapes, "?\x00<kind>" for anything else.
func fingerprintLine(ph ProjectHook, hc *hashCache) (string, error) {
	if ph.Escape != "" {
		target, err := os.Readlink(ph.Path)
		if err != nil {
			target = ph.Escape
		}
		return "l\x00" + target, nil
	}
	now := time.Now() // before the stat: see hashCache.sum
	fi, err := os.Stat(ph.Path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "?\x00" + safefs.Kind(fi.Mode()), nil
	}
	sum, err := hc.sum(ph.Path, fi, now)
	if err != nil {
		return "", err
	}
	mode := "-"
	if fi.Mode()&0o111 != 0 {
		mode = "x"
	}
	return mode + "\x00" + sum, nil
}

// loadTrust computes the project's trust state from the sources of both
// scopes (global plugins shadowed by a local install are marked). When
// nothing hangs on the record (an empty project, or all trusted), it is
// only read if withRecord asks for it: hook runs skip the read.
func loadTrust(l plugins.Layout, srcs []source, all, withRecord bool) (Trust, error) {
	t := Trust{Project: l.ProjectDir, All: all}
	t.Hooks, t.Files, t.walked = projectHooks(srcs)
	local := map[string]bool{}
	for _, s := range srcs {
		if s.shadowedBy != "" {
			t.Replaces = append(t.Replaces, s.plugin.String())
		}
		if s.project && s.plugin.IsZero() {
			for _, it := range s.contents.Hooks {
				local[it.Name] = true
			}
			// A project hooks.json's handlers take the names of the
			// global one's (hooks.json/PreToolUse.1): it replaces them.
			for _, hf := range s.contents.HookFiles {
				local[hf.Name] = true
			}
		}
	}
	for _, s := range srcs {
		if !s.project && s.plugin.IsZero() {
			for _, it := range s.contents.Hooks {
				if local[it.Name] {
					t.Shadows = append(t.Shadows, it.Name)
				}
			}
			for _, hf := range s.contents.HookFiles {
				if local[hf.Name] {
					t.Shadows = append(t.Shadows, hf.Name)
				}
			}
		}
	}
	if l.Local == nil || ((t.Empty() || all) && !withRecord) {
		return t, nil
	}
	lock, err := plugins.ReadLock(l.Local.LockPath())
	if err != nil {
		return t, err
	}
	ts, err := readTrustStore(trustPath(l))
	if err != nil {
		return t, err
	}
	t.Recorded = ts.Projects[l.ProjectDir].Fingerprint
	if t.Recorded == "" && !withRecord {
		// Never trusted: nothing to compare with, so no hashing. An
		// untrusted repository's big files cost a hook run nothing.
		return t, nil
	}
	hc := loadHashCache(l)
	if !withRecord {
		// Hook runs keep the hashes; trust, and the snapshots of
		// commands about to change plugins, write nothing (see
		// scopeSources).
		defer hc.save()
	}
	if t.Fingerprint, t.parts, err = fingerprint(l.ProjectDir, t, lock, hc); err != nil {
		return t, fmt.Errorf("fingerprint project hooks: %w", err)
	}
	return t, nil
}

// ProjectTrust returns the trust state of the layout's project, with its
// record in the trust store and its hook items.
func ProjectTrust(l plugins.Layout, trustAll bool) (Trust, error) {
	srcs, err := sources(l, plugins.HookKind, false)
	if err != nil {
		return Trust{}, err
	}
	t, err := loadTrust(l, srcs, trustAll, true)
	t.Items = projectItems(l, srcs)
	return t, err
}

// ProjectItem is one hook item of the project, named as hook list names
// it: a native hook, or one handler of a hooks.json (a configuration that
// cannot be read is one item).
type ProjectItem struct {
	Name, Path string
	// Disabled: its plugin is disabled, so hook list shows it disabled
	// rather than untrusted.
	Disabled bool
}

// projectItems lists the project's hook items without running any of
// them, from the same scan and configurations discovery reads, so every
// count quiver prints is the one hook list --all shows.
func projectItems(l plugins.Layout, srcs []source) []ProjectItem {
	var out []ProjectItem
	cfgs := newCaches(hooksJSONCacheFile, jsonCodec[parsedConfig]())
	for _, s := range srcs {
		if !s.project {
			continue
		}
		for _, it := range s.contents.Hooks {
			out = append(out, ProjectItem{Name: ItemName(s.plugin, it.Name), Path: it.Path, Disabled: s.disabled})
		}
		for _, hf := range s.contents.HookFiles {
			for _, h := range claudeHooks(l, s, hf, cfgs) {
				out = append(out, ProjectItem{Name: h.Name, Path: h.Path, Disabled: s.disabled})
			}
		}
	}
	return out
}

// UntrustedCount is the number of hook items hook list shows untrusted
// while the project is not trusted: all but those of disabled plugins.
func (t Trust) UntrustedCount() int {
	n := 0
	for _, it := range t.Items {
		if !it.Disabled {
			n++
		}
	}
	return n
}

// TrustSnapshot is a project's trust before a change the user makes by
// name (plugin add, remove, update, enable, disable), to renew it after.
type TrustSnapshot struct {
	trusted  bool
	recorded string
	parts    map[string]string
}

// Trusted reports whether the project was trusted (or had no project
// hooks) when the snapshot was taken.
func (s TrustSnapshot) Trusted() bool { return s.trusted }

// SnapshotTrust records the project's trust and the lines of its
// fingerprint.
func SnapshotTrust(l plugins.Layout) (TrustSnapshot, error) {
	t, err := ProjectTrust(l, false)
	if err != nil {
		return TrustSnapshot{}, err
	}
	snap := TrustSnapshot{trusted: t.Trusted(), recorded: t.Recorded, parts: map[string]string{}}
	for _, p := range t.parts {
		snap.parts[p.key] = p.line
	}
	return snap, nil
}

// RenewTrust records the fingerprint again after the user changed the
// named plugins (nil: any plugin) of a project that was trusted before
// (SPEC §9), but only when everything else is as it was: a file a pull
// (or anyone) wrote meanwhile outside those plugins, such as a new
// .quiver/hooks/x, must not be trusted in the user's name. foreign lists
// what else changed; then nothing is recorded. ErrTrustChanged: another
// quiver trusted or revoked the project meanwhile.
func RenewTrust(l plugins.Layout, before TrustSnapshot, changed []plugins.Name) (foreign []string, err error) {
	if !before.trusted {
		return nil, nil
	}
	t, err := ProjectTrust(l, false)
	if err != nil {
		return nil, err
	}
	now := map[string]string{}
	for _, p := range t.parts {
		now[p.key] = p.line
	}
	ours := func(key string) bool {
		kind, what, _ := strings.Cut(key, " ")
		if kind == "file" {
			rel, err := filepath.Rel(l.ProjectDir, l.Local.PluginsDir())
			if err != nil {
				return false
			}
			rel = filepath.ToSlash(rel) + "/"
			if changed == nil {
				return strings.HasPrefix(what, rel)
			}
			for _, n := range changed {
				if strings.HasPrefix(what, rel+n.Dir()+"/") {
					return true
				}
			}
			return false
		}
		if changed == nil {
			return true
		}
		for _, n := range changed {
			if what == n.String() {
				return true
			}
		}
		return false
	}
	for k, v := range now {
		if before.parts[k] != v && !ours(k) {
			foreign = append(foreign, strings.TrimPrefix(k, "file "))
		}
	}
	for k := range before.parts {
		if _, ok := now[k]; !ok && !ours(k) {
			foreign = append(foreign, strings.TrimPrefix(k, "file "))
		}
	}
	if len(foreign) > 0 {
		sort.Strings(foreign)
		return foreign, nil
	}
	_, err = storeTrust(l, t, &before.recorded)
	return nil, err
}

// ErrTrustChanged is returned by RenewTrust when the project's trust
// record changed while the caller worked (another quiver trusted or
// revoked it): the caller's view is stale, so nothing is recorded.
var ErrTrustChanged = errors.New("the project's trust changed meanwhile")

// RecordTrust trusts the project's hooks as they are now (quiver trust).
// Nothing is written when the record already matches.
func RecordTrust(l plugins.Layout) (Trust, error) { return recordTrust(l, nil) }

func recordTrust(l plugins.Layout, expected *string) (Trust, error) {
	t, err := ProjectTrust(l, false)
	if err != nil {
		return t, err
	}
	return storeTrust(l, t, expected)
}

// storeTrust records t's fingerprint for the project, only while the
// stored record is still expected (when given): a revocation that
// happened meanwhile is never undone. Nothing is written when the record
// already matches.
func storeTrust(l plugins.Layout, t Trust, expected *string) (Trust, error) {
	if t.Recorded == t.Fingerprint {
		return t, nil
	}
	err := updateTrustStore(l, func(ts *trustStore) error {
		cur := ts.Projects[l.ProjectDir].Fingerprint
		if expected != nil && cur != *expected {
			t.Recorded = cur
			return ErrTrustChanged
		}
		if t.Empty() {
			delete(ts.Projects, l.ProjectDir)
			return nil
		}
		ts.Projects[l.ProjectDir] = trustRecord{Fingerprint: t.Fingerprint, TrustedAt: time.Now().UTC().Truncate(time.Second)}
		return nil
	})
	if err == nil {
		t.Recorded = t.Fingerprint
	}
	return t, err
}

// RevokeTrust forgets the project's trust record; it reports whether there
// was one.
func RevokeTrust(l plugins.Layout) (bool, error) {
	had := false
	err := updateTrustStore(l, func(ts *trustStore) error {
		_, had = ts.Projects[l.ProjectDir]
		delete(ts.Projects, l.ProjectDir)
		return nil
	})
	return had, err
}

// trustLockWait bounds the wait for another quiver updating the store.
const trustLockWait = 10 * time.Second

// updateTrustStore reads, changes and writes the trust store under a file
// lock, so concurrent trusts and revocations (in this project or others)
// each see the other's result: none is lost, none undone.
func updateTrustStore(l plugins.Layout, change func(*trustStore) error) error {
	path := trustPath(l)
	unlock, err := plugins.LockFile(context.Background(), path+".lock", trustLockWait, nil)
	if err != nil {
		return fmt.Errorf("lock the trust store: %w", err)
	}
	defer unlock()
	ts, err := readTrustStore(path)
	if err != nil {
		return err
	}
	if err := change(ts); err != nil {
		return err
	}
	data, err := yaml.Marshal(ts)
	if err != nil {
		return err
	}
	return plugins.WriteFileAtomic(path, append([]byte("# quiver trust store: projects whose hooks you reviewed (quiver trust)\n"), data...), 0o600)
}
