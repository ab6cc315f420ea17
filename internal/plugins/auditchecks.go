package plugins

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/plugins/audit"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
)

// The plugins room's checks for `quiver audit` (SPEC §17): the lock
// against the folders and their content hashes (what plugin verify
// finds), and the content scan of the installed files now. Files are
// absolute; audit.NewReport places them.

// Rule ids of LockCheck and ScanCheck.
const (
	RuleDriftModified = "quiver/drift/modified"
	RuleDriftMissing  = "quiver/drift/missing"
	RuleDriftOrphaned = "quiver/drift/orphaned"
	RuleDriftLeftover = "quiver/drift/leftover"
	// RuleDriftUnverified is a folder whose hash matches its entry though
	// no install on this machine put it there; RuleTrackedPlugins a
	// project whose repository tracks files of its plugins folder.
	RuleDriftUnverified = "quiver/drift/unverified"
	RuleTrackedPlugins  = "quiver/lock/tracked-plugins"
	RuleLockInvalid     = "quiver/lock/invalid"
	RuleScanFailed      = "quiver/scan/unreadable"
)

// LockRules are the rules LockCheck reports.
var LockRules = []audit.Rule{
	{ID: RuleDriftModified, Severity: audit.Error, SecuritySeverity: "8.0",
		Description: "An installed plugin's files differ from the content hash in quiver.lock"},
	{ID: RuleDriftMissing, Severity: audit.Error, SecuritySeverity: "5.0",
		Description: "A plugin in quiver.lock is not installed"},
	{ID: RuleDriftOrphaned, Severity: audit.Error, SecuritySeverity: "8.0",
		Description: "A plugin folder is installed that quiver.lock does not name"},
	{ID: RuleDriftLeftover, Severity: audit.Note,
		Description: "A leftover of an interrupted quiver command (the next one cleans it)"},
	{ID: RuleDriftUnverified, Severity: audit.Error, SecuritySeverity: "8.0",
		Description: "A plugin folder matches its lock entry's hash, but no install on this machine fetched it from the entry's source and commit"},
	{ID: RuleTrackedPlugins, Severity: audit.Error, SecuritySeverity: "8.0",
		Description: "The repository tracks files of .quiver/plugins/, which quiver installs from the lock and never reads from the repository"},
	{ID: RuleLockInvalid, Severity: audit.Error,
		Description: "quiver.lock cannot be read"},
}

// LockCheck compares the scope's plugin folders with its lock (Verify,
// as plugin verify does): a folder whose content hash differs (a finding
// per changed file where the folder is a git checkout), a locked plugin
// that is not installed (at its line of the lock), a folder the lock does
// not name, all errors; leftovers of interrupted commands, notes.
func LockCheck(s Scope) audit.Check {
	c := audit.Check{Name: "lock", Rules: LockRules}
	res, err := Verify(s)
	if err != nil {
		c.Message = "the lock file cannot be read"
		c.Findings = []audit.Finding{{Rule: RuleLockInvalid, Severity: audit.Error, Message: err.Error(), File: s.LockPath()}}
		return c
	}
	lines := lockLines(s.LockPath())
	install := "quiver plugin install" + s.Flag()
	locked, matched := 0, 0
	for _, r := range res {
		dir := filepath.Join(s.PluginsDir(), r.Name) // leftovers are named by their folder
		if n, err := ParseName(r.Name); err == nil {
			dir = s.PluginDir(n)
		}
		add := func(rule string, sev audit.Severity, file string, line int, msg string) {
			c.Findings = append(c.Findings, audit.Finding{Rule: rule, Severity: sev, Message: msg, File: file, Line: line})
		}
		switch r.Status {
		case "ok":
			locked++
			matched++
		case "modified":
			locked++
			if len(r.Changed) == 0 {
				add(RuleDriftModified, audit.Error, dir, 0, fmt.Sprintf("plugin %s differs from its content hash in the lock; %s restores the locked version", r.Name, install))
			}
			for _, f := range r.Changed {
				add(RuleDriftModified, audit.Error, filepath.Join(dir, filepath.FromSlash(f)), 0,
					fmt.Sprintf("%s of plugin %s differs from the locked version (added, changed or removed); %s restores it", f, r.Name, install))
			}
		case "missing":
			locked++
			add(RuleDriftMissing, audit.Error, s.LockPath(), lines[r.Name], fmt.Sprintf("plugin %s is in the lock but not installed; %s installs it", r.Name, install))
		case "unverified":
			locked++
			add(RuleDriftUnverified, audit.Error, dir, 0, fmt.Sprintf("plugin %s matches its content hash in the lock, but no install on this machine fetched it from %s; %s fetches it", r.Name, Redact(r.Source), install))
		case "unlocked":
			add(RuleDriftOrphaned, audit.Error, dir, 0, fmt.Sprintf("plugin %s is installed but not in the lock; %s removes it", r.Name, install))
		case "leftover":
			add(RuleDriftLeftover, audit.Note, dir, 0, "leftover of an interrupted command; the next plugin command cleans it")
		}
	}
	if _, err := os.Lstat(s.Root); err == nil && s.Location == Local {
		// quiver ignores .quiver/plugins/ in git (writeGitignore): a
		// repository that tracks it brings folders that claim to be what
		// the lock says.
		if tracked, err := trackedByGit(s.Root, []string{s.PluginsDir()}); err != nil {
			c.Findings = append(c.Findings, audit.Finding{Rule: RuleTrackedPlugins, Severity: audit.Warning, File: s.PluginsDir(),
				Message: fmt.Sprintf("could not tell whether the repository tracks %s: %v", s.PluginsDir(), err)})
		} else if tracked[s.PluginsDir()] {
			c.Findings = append(c.Findings, audit.Finding{Rule: RuleTrackedPlugins, Severity: audit.Error, File: s.PluginsDir(),
				Message: "the repository tracks files of .quiver/plugins/, which quiver never takes from a repository; git rm -r --cached .quiver/plugins, and commit quiver.lock alone"})
		}
	}
	c.Message = fmt.Sprintf("%d of %s match the lock", matched, term.Count(locked, "locked plugin"))
	return c
}

// lockLines finds the line of each plugin's key in the lock file, for
// findings about an entry; a lock that does not parse has none.
func lockLines(path string) map[string]int {
	lines := map[string]int{}
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err != nil {
		return lines
	}
	var doc yaml.Node
	if yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc) != nil || len(doc.Content) == 0 {
		return lines
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "plugins" {
			continue
		}
		ps := top.Content[i+1]
		for j := 0; j+1 < len(ps.Content); j += 2 {
			lines[ps.Content[j].Value] = ps.Content[j].Line
		}
	}
	return lines
}

// ScanRules are the rules ScanCheck reports: the content scan's
// classes, and a plugin that could not be scanned. (A function, not a
// variable: every process would build it at start, hook run included.)
func ScanRules() []audit.Rule {
	var out []audit.Rule
	for _, r := range scan.Rules {
		rule := audit.Rule{ID: r.ID, Severity: audit.Warning, SecuritySeverity: "5.0",
			Description: fmt.Sprintf("Hidden Unicode in a plugin's files: %s (%s)", r.Name, r.Ranges)}
		if r.Severity == scan.Critical {
			rule.Severity, rule.SecuritySeverity = audit.Error, "9.5"
		}
		out = append(out, rule)
	}
	return append(out, audit.Rule{ID: RuleScanFailed, Severity: audit.Error,
		Description: "An installed plugin's files could not be scanned"})
}

// ScanCheck scans the files of every plugin folder of the scope now
// (locked or not: an agent reads them either way), as installs do: a
// critical finding is an error, a warning-class one a warning, each at
// its file, line and column. What the scope's scan records say an
// install let in (--allow-hidden-unicode, or a policy) for the content
// now installed is reported too, once: a finding both in the record and
// in today's scan says it was let in.
func ScanCheck(s Scope) audit.Check {
	c := audit.Check{Name: "scan", Rules: ScanRules()}
	lock, err := ReadLock(s.LockPath())
	if err != nil {
		lock = &Lock{} // LockCheck says so; the folders are scanned all the same
	}
	entries, err := os.ReadDir(s.PluginsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Message = "the plugins folder cannot be read"
		c.Findings = []audit.Finding{{Rule: RuleScanFailed, Severity: audit.Error, Message: err.Error(), File: s.PluginsDir()}}
		return c
	}
	files, scanned, critical, warnings := 0, 0, 0, 0
	for _, de := range entries {
		n, err := ParseName(de.Name())
		if err != nil || n.Dir() != de.Name() {
			continue // leftovers and what quiver never installs
		}
		dir := s.PluginDir(n)
		rep, err := scan.Dir(scanRoot(dir), 0)
		if err != nil {
			c.Findings = append(c.Findings, audit.Finding{Rule: RuleScanFailed, Severity: audit.Error, File: dir,
				Message: fmt.Sprintf("plugin %s could not be scanned: %v", n, err)})
			continue
		}
		scanned++
		files += rep.Files
		var recorded []scan.Finding
		if e, ok := lock.Plugins[n.String()]; ok {
			if rec, ok, err := ReadScanRecord(s, n); err == nil && ok && rec.Hash == e.Hash {
				recorded = rec.Findings
			}
		}
		for _, f := range mergeScan(rep.Findings, recorded) {
			sev := audit.Warning
			if f.Severity == scan.Critical {
				sev = audit.Error
				critical++
			} else {
				warnings++
			}
			c.Findings = append(c.Findings, audit.Finding{Rule: f.Rule, Severity: sev, Message: scanMessage(n, f.Finding, f.letIn),
				File: filepath.Join(dir, filepath.FromSlash(f.File)), Line: f.Line, Column: f.Column})
		}
	}
	// The scope's own items and settings reach the agents as plugins'
	// do (a project's once it is trusted): scanned alike.
	own, err := ScanOwn(s)
	if err != nil {
		c.Findings = append(c.Findings, audit.Finding{Rule: RuleScanFailed, Severity: audit.Error, File: s.Root,
			Message: fmt.Sprintf("the own items of %s could not be scanned: %v", s.Root, err)})
	}
	for _, f := range own.Findings {
		sev := audit.Warning
		if f.Severity == scan.Critical {
			sev = audit.Error
			critical++
		} else {
			warnings++
		}
		c.Findings = append(c.Findings, audit.Finding{Rule: f.Rule, Severity: sev, Message: findingMessage(f, "the scope's own files ("+s.Root+")", false),
			File: filepath.Join(s.Root, filepath.FromSlash(f.File)), Line: f.Line, Column: f.Column})
	}
	c.Message = fmt.Sprintf("%s of %s and %d of the scope's own scanned: %d critical, %s", term.Count(files, "file"), term.Count(scanned, "plugin"), own.Files, critical, term.Count(warnings, "warning"))
	return c
}

// scanRoot is the folder to scan for a plugin folder: what a --link
// install's link points to, the folder itself otherwise.
func scanRoot(dir string) string {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(dir); err == nil {
			return target
		}
	}
	return dir
}

// scanned is a finding of the content scan, and whether an install's
// record shows it was let in.
type scanned struct {
	scan.Finding
	letIn bool
}

// mergeScan is today's findings and the recorded ones, each once (by
// rule, file, line and column): a critical finding the record holds was
// let in at install. A recorded finding today's scan lacks is kept: the
// record is about this very content.
func mergeScan(now, recorded []scan.Finding) []scanned {
	key := func(f scan.Finding) string {
		return fmt.Sprintf("%s\x00%s\x00%d\x00%d", f.Rule, f.File, f.Line, f.Column)
	}
	inRecord := map[string]bool{}
	for _, f := range recorded {
		inRecord[key(f)] = true
	}
	seen := map[string]bool{}
	var out []scanned
	for _, list := range [][]scan.Finding{now, recorded} {
		for _, f := range list {
			k := key(f)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, scanned{Finding: f, letIn: inRecord[k] && f.Severity == scan.Critical})
		}
	}
	return out
}

// scanMessage says what f is, in plugin n, without its location (the
// finding has it): the code point, the class, how many, the hidden text
// tag characters spell, and the line around it, escaped.
func scanMessage(n Name, f scan.Finding, letIn bool) string {
	return findingMessage(f, "plugin "+n.String(), letIn)
}

// findingMessage is scanMessage for a finding in where.
func findingMessage(f scan.Finding, where string, letIn bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s in %s", f.CodePoint, f.Name(), where)
	if f.Count > 1 {
		fmt.Fprintf(&b, " (%d characters)", f.Count)
	}
	if f.Hidden != "" {
		fmt.Fprintf(&b, ", hidden text %q", f.Hidden)
	}
	if f.Context != "" {
		fmt.Fprintf(&b, `, in "%s"`, f.Context)
	}
	if letIn {
		b.WriteString("; let in when it was installed (--allow-hidden-unicode or the policy)")
	}
	return b.String()
}
