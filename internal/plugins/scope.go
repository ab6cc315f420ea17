package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Location names a scope as it appears in output: "local" or "global".
type Location string

// The two scopes (SPEC §1).
const (
	Local  Location = "local"
	Global Location = "global"
)

// Scope is one root folder: the project's .quiver or the user's home.
type Scope struct {
	Location Location
	Root     string
	// Machine is where the scope keeps what belongs to this machine and
	// not to the repository (SPEC §1, §9): caches, state, plugin data,
	// the agents' wiring record, the user's recorded choices. For the
	// global scope it is Root; for a project it is
	// $QUIVER_HOME/projects/<id>, so a repository can never plant them.
	// "" means Root.
	Machine string
	// Store is the machine's store (StoreDir), the same for both
	// scopes; "" for none.
	Store string
}

// machine is the scope's machine-owned folder.
func (s Scope) machine() string {
	if s.Machine == "" {
		return s.Root
	}
	return s.Machine
}

// MachineDir is the scope's machine-owned folder (see Scope.Machine).
func (s Scope) MachineDir() string { return s.machine() }

// PluginsDir is where the scope's plugins are installed.
func (s Scope) PluginsDir() string { return filepath.Join(s.Root, "plugins") }

// PluginDir is the folder of one installed plugin.
func (s Scope) PluginDir(n Name) string { return filepath.Join(s.PluginsDir(), n.Dir()) }

// DataDir is the plugin's persistent data folder, which survives updates.
func (s Scope) DataDir(n Name) string { return filepath.Join(s.machine(), "data", n.Dir()) }

// DataRoot holds the scope's plugin data folders.
func (s Scope) DataRoot() string { return filepath.Join(s.machine(), "data") }

// MarketplacesDir holds the scope's marketplaces (SPEC §12).
func (s Scope) MarketplacesDir() string { return filepath.Join(s.Root, "marketplaces") }

// MarketplaceDir is where marketplace name is checked out.
func (s Scope) MarketplaceDir(name string) string { return filepath.Join(s.MarketplacesDir(), name) }

// LockPath is the scope's lock file.
func (s Scope) LockPath() string { return filepath.Join(s.Root, "quiver.lock") }

// CacheDir holds disposable caches.
func (s Scope) CacheDir() string { return filepath.Join(s.machine(), "cache") }

// StateDir holds quiver's own records that are not caches (SPEC §1).
func (s Scope) StateDir() string { return filepath.Join(s.machine(), "state") }

// mutexPath is the file flock(2)ed by mutating commands.
func (s Scope) mutexPath() string { return filepath.Join(s.Root, ".lock") }

// CheckLinks refuses a project scope whose own entries (the root, plugins/,
// data/, cache/, the lock file and the scope lock) are symlinks: a
// repository could commit such a link to make quiver write into, or delete
// from, a folder elsewhere on the user's disk. The user's global scope may
// be linked as the user likes.
func (s Scope) CheckLinks() error {
	if s.Location != Local {
		return nil
	}
	for _, p := range []string{s.Root, s.PluginsDir(), s.MarketplacesDir(), s.LockPath(), s.mutexPath()} {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, _ := os.Readlink(p)
		return fmt.Errorf("%s is a symlink (to %s); quiver does not follow links in a project's .quiver folder: remove it", p, target)
	}
	return nil
}

// Layout is the resolved pair of scopes for one invocation.
type Layout struct {
	// ProjectDir is the project directory (SPEC §1).
	ProjectDir string
	// Local is nil when the project's root is the global root: then there
	// is only the global scope.
	Local  *Scope
	Global Scope
}

// NewLayout builds the layout for a project directory and a global root.
func NewLayout(projectDir, globalRoot string) Layout {
	l := Layout{
		ProjectDir: projectDir,
		Global:     Scope{Location: Global, Root: globalRoot, Store: StoreDir(globalRoot)},
	}
	localRoot := filepath.Join(projectDir, ".quiver")
	if !sameDir(localRoot, globalRoot) {
		l.Local = &Scope{Location: Local, Root: localRoot, Machine: ProjectMachineDir(globalRoot, projectDir), Store: StoreDir(globalRoot)}
	}
	return l
}

// ProjectMachineDir is the folder under the user's home where a project's
// machine-owned records live: projects/<folder name>-<16 hex of the
// path's sha256>, readable by people and unique per path.
func ProjectMachineDir(globalRoot, projectDir string) string {
	sum := sha256.Sum256([]byte(projectDir))
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(projectDir))
	if len(base) > 40 {
		base = base[:40]
	}
	base = strings.TrimLeft(base, ".")
	return filepath.Join(globalRoot, "projects", base+"-"+hex.EncodeToString(sum[:8]))
}

// Scopes returns the scopes in precedence order: local first.
func (l Layout) Scopes() []Scope {
	if l.Local == nil {
		return []Scope{l.Global}
	}
	return []Scope{*l.Local, l.Global}
}

// Roots names the scopes' roots, the project's first: "ROOT and ROOT".
func (l Layout) Roots() string {
	if l.Local == nil {
		return l.Global.Root
	}
	return l.Local.Root + " and " + l.Global.Root
}

// Scope returns the scope a command acts on: the global one when global is
// set or when there is no separate local scope.
func (l Layout) Scope(global bool) Scope {
	if global || l.Local == nil {
		return l.Global
	}
	return *l.Local
}

// Other returns the scope that is not s, if there is one.
func (l Layout) Other(s Scope) (Scope, bool) {
	if l.Local == nil {
		return Scope{}, false
	}
	if s.Location == Local {
		return l.Global, true
	}
	return *l.Local, true
}

// sameDir compares two folders by their resolved paths, so a symlinked home
// still counts as the same root.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// Home is the user's home folder: $HOME, else the system's record of it.
func Home(getenv func(string) string) (string, error) {
	if home := getenv("HOME"); home != "" {
		return home, nil
	}
	return os.UserHomeDir()
}

// GlobalRoot returns $QUIVER_HOME, else ~/.quiver.
func GlobalRoot(getenv func(string) string) (string, error) {
	if h := getenv("QUIVER_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home, err := Home(getenv)
	if err != nil {
		return "", fmt.Errorf("find the home folder: %w (set QUIVER_HOME)", err)
	}
	return filepath.Join(home, ".quiver"), nil
}

// ResolveLayout resolves the scopes of one invocation (SPEC §1): the
// project is flag, else QUIVER_PROJECT_DIR, else the one the working
// directory is in (ProjectDir). An agent's session root, when given and
// absolute, stands for the working directory and QUIVER_PROJECT_DIR (SPEC
// §9: the session's project decides): only the flag names another
// project. The project's machine records are then moved where they belong
// (MigrateMachine), notify hearing of each move.
func ResolveLayout(flag, sessionRoot string, getenv func(string) string, getwd func() (string, error), notify func(string)) (Layout, error) {
	wd, err := getwd()
	if err != nil {
		return Layout{}, err
	}
	env := getenv("QUIVER_PROJECT_DIR")
	if sessionRoot != "" && filepath.IsAbs(sessionRoot) {
		wd, env = sessionRoot, ""
	}
	project, err := ProjectDir(flag, env, wd)
	if err != nil {
		return Layout{}, err
	}
	global, err := GlobalRoot(getenv)
	if err != nil {
		return Layout{}, err
	}
	l := NewLayout(project, global)
	if err := MigrateMachine(l, notify); err != nil {
		return l, fmt.Errorf("move the project's machine records to %s: %w", l.Local.Machine, err)
	}
	return l, nil
}

// ProjectDir resolves the project directory (SPEC §1): flag, then env, then
// the top of the git work tree containing wd, then wd. Finding the work tree
// only looks for a .git entry; it starts no process.
func ProjectDir(flag, env, wd string) (string, error) {
	for _, d := range []string{flag, env} {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("project directory %s: %w", d, err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("project directory %s is not a folder", d)
		}
		return abs, nil
	}
	// Inside a scope root (say, in an installed plugin's folder, which has
	// its own .git and may carry a .quiver of its own), the project is the
	// folder that holds the outermost .quiver.
	if i := strings.Index(wd+string(filepath.Separator), string(filepath.Separator)+".quiver"+string(filepath.Separator)); i >= 0 {
		wd = wd[:i]
		if wd == "" {
			wd = string(filepath.Separator)
		}
	}
	for d := wd; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return wd, nil
		}
		d = parent
	}
}

// ProjectHolding is the nearest folder from wd up that holds a project's
// .quiver folder, "" for none; it goes no higher than the top of the git
// work tree wd is in, nor to home (the user's, whose ~/.quiver is the
// global scope). quiver mcp exec
// finds its project so when a committed configuration names none: the
// agent starts the server in its session's folder, which may be a
// subfolder of the project.
func ProjectHolding(wd, home string) string {
	for d := filepath.Clean(wd); ; {
		if home != "" && d == filepath.Clean(home) {
			return ""
		}
		if fi, err := os.Lstat(filepath.Join(d, ".quiver")); err == nil && fi.IsDir() {
			return d
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			// The top of a work tree: a repository cloned inside a
			// project is not that project, as everywhere in quiver.
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
