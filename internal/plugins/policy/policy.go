// Package policy reads a team's policy files and answers, at every door
// that installs, updates, wires or trusts, whether what is about to
// happen is allowed (SPEC §17). Up to three files apply, each only able
// to tighten the ones before it: the machine's (/etc/quiver/policy.yaml,
// or QUIVER_POLICY_FILE), the user's ($QUIVER_HOME/policy.yaml) and the
// project's (.quiver/policy.yaml, committed). A repository can therefore
// forbid more, never allow more.
//
// The files are never flattened into one: an allow list of each file must
// admit a source (the lists intersect), a deny list of any file refuses it
// (they join), a boolean is true when any file says so and a level is the
// strictest one said. Keeping them apart is what lets a refusal name the
// file whose rule refused.
//
// *Policy is the installer's plugins.Gate; the agents' wiring and
// `quiver trust` ask it about what is installed (CheckInstalled), and
// `quiver audit` reports what it finds (Audit). It is never asked at
// `hook run`.
package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// MachinePath is the machine's policy file, read when it exists.
var MachinePath = "/etc/quiver/policy.yaml"

// EnvFile names the variable that replaces MachinePath; the file it
// names must exist.
const EnvFile = "QUIVER_POLICY_FILE"

// FileName is the user's and the project's policy file, in
// $QUIVER_HOME and in the project's .quiver folder.
const FileName = "policy.yaml"

// maxFile bounds a policy file.
const maxFile = 256 << 10

// Policy is the policy files that apply to one invocation, in order
// (machine, user, project), those that do not exist left out.
type Policy struct {
	// Files are the files read; a file with Err makes every check fail.
	Files []*File

	layout  plugins.Layout
	global  bool
	gitBase string
	// rewrite is a URL as it is fetched, after the user's insteadOf
	// rules (the git helper reads them, as at every fetch).
	rewrite func(string) string
	// checkouts caches checkoutVerified's answers, for every scope's
	// view (Scope) alike; the plugins of one command are checked
	// concurrently.
	checkouts *verifiedCache
}

// fetched is src as it is fetched, after the user's insteadOf rules.
func (p *Policy) fetched(src string) string {
	if p.rewrite == nil {
		return src
	}
	return p.rewrite(src)
}

// Load reads the policy files for layout: the machine's (QUIVER_POLICY_FILE
// when set, else MachinePath), the user's and, when the layout has a
// project scope, the project's. It never fails: a file that cannot be
// read or does not parse is kept with its Err, and every check of a
// policy that holds it fails (fail closed). Scope(true) leaves the
// project's out, for -g commands. rewrite is a source as it is fetched
// after the user's insteadOf rules (Fetcher.Rewrite, the command's own
// fetcher: a rewrite that does not parse is reported there, and the
// written source still counts); nil judges sources as written only.
func Load(layout plugins.Layout, getenv func(string) string, rewrite func(string) string) *Policy {
	p := &Policy{layout: layout, gitBase: getenv("QUIVER_GIT_BASE"), rewrite: rewrite, checkouts: new(verifiedCache)}
	if env := getenv(EnvFile); env != "" {
		p.add(env, Machine, true)
	} else {
		p.add(MachinePath, Machine, false)
	}
	p.add(filepath.Join(layout.Global.Root, FileName), User, false)
	if layout.Local != nil {
		p.add(filepath.Join(layout.Local.Root, FileName), Project, false)
	}
	return p
}

// add reads one file; required says a missing one is an error.
func (p *Policy) add(path string, level Level, required bool) {
	f := read(path, level, required)
	if f != nil {
		p.Files = append(p.Files, f)
	}
}

// read reads the policy file at path: nil when it does not exist and is
// not required. It is read as a regular file of bounded size (a FIFO or
// a device is an error, never a hang).
func read(path string, level Level, required bool) *File {
	if !filepath.IsAbs(path) {
		return &File{Path: path, Level: level, Err: fmt.Errorf("%s names %s, which is not an absolute path", EnvFile, path)}
	}
	data, err := safefs.ReadFile(path, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return &File{Path: path, Level: level, Err: fmt.Errorf("%s names %s, which does not exist", EnvFile, path)}
	case err != nil:
		return &File{Path: path, Level: level, Err: err}
	}
	f, err := Parse(data, path, level)
	if err != nil {
		return &File{Path: path, Level: level, Err: fmt.Errorf("does not parse: %w", err)}
	}
	return f
}

// New is a policy made of files already read, for tests and tools; its
// checks read marketplaces through layout.
func New(layout plugins.Layout, files ...*File) *Policy {
	return &Policy{Files: files, layout: layout, checkouts: new(verifiedCache)}
}

// verifiedCache is checkoutVerified's memory.
type verifiedCache struct {
	sync.Mutex
	m map[string]bool
}

// Scope is the policy as it applies to one scope's commands: the
// machine's and the user's files only for the user's scope (-g), all
// three for the project's. The nil policy's view is nil.
func (p *Policy) Scope(global bool) *Policy {
	if p == nil {
		return nil
	}
	v := *p
	v.global = global
	if global {
		v.Files = nil
		for _, f := range p.Files {
			if f.Level != Project {
				v.Files = append(v.Files, f)
			}
		}
	}
	return &v
}

// Warnings are what the files say that quiver ignores (unknown fields).
func (p *Policy) Warnings() []string {
	var out []string
	for _, f := range p.Files {
		out = append(out, f.Warnings...)
	}
	return out
}

// BrokenError is a policy file that cannot be read or does not parse:
// nothing is installed until it is fixed.
type BrokenError struct {
	Path string
	Err  error
}

func (e *BrokenError) Error() string {
	return fmt.Sprintf("policy (%s): %v; nothing is installed, updated, wired or trusted until it is fixed", e.Path, e.Err)
}

func (e *BrokenError) Unwrap() error { return e.Err }

// Err is the first file's error (a *BrokenError), nil when every file
// was read.
func (p *Policy) Err() error {
	for _, f := range p.Files {
		if f.Err != nil {
			return &BrokenError{Path: f.Path, Err: f.Err}
		}
	}
	return nil
}

// Frozen implements plugins.Gate: require.lock refuses every change to
// the lock (plugin add, update, remove; marketplace add, update, remove);
// only plugin install changes what is installed, to exactly the lock.
func (p *Policy) Frozen() error {
	if err := p.Err(); err != nil {
		return err
	}
	for _, f := range p.Files {
		if f.Require.Lock {
			return &plugins.Refusal{ID: RuleLockFrozen, File: f.Path, Rule: "require.lock",
				Message: "the lock is frozen (require.lock): only quiver plugin install changes what is installed, to exactly what quiver.lock says"}
		}
	}
	return nil
}

// levels orders the scan levels, the strictest first.
func levels(level string) int {
	switch level {
	case Warn:
		return 1
	case Off:
		return 2
	}
	return 0 // Block, and what is none of the three
}

// stricter is the stricter of two levels.
func stricter(a, b string) string {
	if levels(a) <= levels(b) {
		return a
	}
	return b
}

// HiddenUnicode is the level of scan.hidden_unicode and the file it came
// from ("" for quiver's default, block). quiver's default applies where
// no file speaks; the user's file may lower it unless the machine's sets
// the key; the project's may only raise it.
func (p *Policy) HiddenUnicode() (level, from string) {
	level = Block
	machineSet := false
	for _, f := range p.Files {
		v := f.HiddenUnicode
		if v == "" {
			continue
		}
		switch {
		case f.Level == Machine:
			level, from, machineSet = v, f.Path, true
		case f.Level == User && !machineSet:
			level, from = v, f.Path
		case stricter(v, level) != level:
			level, from = v, f.Path
		}
	}
	return level, from
}

// machineHiddenUnicode is the machine file's scan.hidden_unicode, "" when
// it does not set it.
func (p *Policy) machineHiddenUnicode() string {
	for _, f := range p.Files {
		if f.Level == Machine && f.HiddenUnicode != "" {
			return f.HiddenUnicode
		}
	}
	return ""
}

// ScanMode implements plugins.Gate: the content scan's mode for a command
// that asked for requested (scan.ModeFor: Warn for --allow-hidden-unicode).
// The flag is the user's choice, never stronger than a machine policy that
// sets the key: it lowers the policy's level to at most warn, and the
// machine's level, when set, is a floor.
func (p *Policy) ScanMode(requested scan.Mode) scan.Mode {
	level, _ := p.HiddenUnicode()
	if requested != scan.Block {
		flag := Warn
		if requested == scan.Off {
			flag = Off
		}
		if levels(flag) > levels(level) {
			level = flag
		}
		if m := p.machineHiddenUnicode(); m != "" {
			level = stricter(level, m)
		}
	}
	switch level {
	case Warn:
		return scan.Warn
	case Off:
		return scan.Off
	}
	return scan.Block
}
