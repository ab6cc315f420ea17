package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// The harness of the concurrency, crash and secrets tests: quiver runs as
// real processes (the test binary re-executed, see TestMain) against a
// loopback git server, in a project and a home of their own.

// harness is one project and one home, served by one git server.
type harness struct {
	t             *testing.T
	srv           *gitserver.Server
	project, home string
	scope         plugins.Scope // the project's (local) scope
	env           []string
}

func newHarness(t *testing.T, srv *gitserver.Server, extraEnv ...string) *harness {
	t.Helper()
	h := &harness{t: t, srv: srv, project: t.TempDir(), home: t.TempDir()}
	h.scope = plugins.Scope{Location: plugins.Local, Root: filepath.Join(h.project, ".quiver"), Machine: plugins.ProjectMachineDir(h.home, h.project)}
	h.env = append(os.Environ(), asQuiver+"=1", "QUIVER_HOME="+h.home, "HOME="+h.home,
		"QUIVER_GIT_BASE="+srv.URL, "QUIVER_PROJECT_DIR="+h.project,
		"QUIVER_GIT_TOKEN=", "GITHUB_TOKEN=", "QUIVER_AUDIT_LOG=", "QUIVER_NO_HOOKS=", "QUIVER_HOOK_TIMEOUT=")
	h.env = append(h.env, extraEnv...)
	return h
}

// with returns a harness for the same project and home whose commands
// also get extraEnv (later values win).
func (h *harness) with(extraEnv ...string) *harness {
	c := *h
	c.env = append(slices.Clip(h.env), extraEnv...)
	return &c
}

// cmd is quiver with args, not started.
func (h *harness) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = h.project
	cmd.Env = h.env
	return cmd
}

// ran is what one quiver process did.
type ran struct {
	args           []string
	stdout, stderr string
	code           int
	took           time.Duration
}

func (r ran) String() string {
	return fmt.Sprintf("quiver %s: exit %d after %s\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// run runs quiver to the end, with stdin if given. Any goroutine may call
// it.
func (h *harness) run(stdin string, args ...string) ran {
	cmd := h.cmd(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	r := ran{args: args, stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		// Errorf, not Fatalf: run is called from reader goroutines too.
		h.t.Errorf("quiver %s: %v", strings.Join(args, " "), err)
		r.code = -1
	}
	return r
}

// must runs quiver and fails the test unless it exits 0.
func (h *harness) must(args ...string) ran {
	h.t.Helper()
	r := h.run("", args...)
	if r.code != 0 {
		h.t.Fatalf("%s", r)
	}
	return r
}

// stackTrace matches what a Go panic or runtime crash prints.
var stackTrace = regexp.MustCompile(`(?m)^panic: |^fatal error: |^goroutine \d+ \[|\.go:\d+ \+0x|runtime error`)

// cleanOutcome returns "" when r is an acceptable end of a command that
// may lose a race: success, or exit 1 with one-line "quiver: " messages
// on stderr and never a Go stack trace. Otherwise it says what is wrong.
func cleanOutcome(r ran) string {
	if stackTrace.MatchString(r.stdout + r.stderr) {
		return "a Go stack trace"
	}
	if r.code == 0 {
		return ""
	}
	if r.code != 1 {
		return fmt.Sprintf("exit code %d, want 0 or 1", r.code)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return "failed without a message"
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "quiver: ") {
			return fmt.Sprintf("stderr line %q does not start with \"quiver: \"", l)
		}
	}
	return ""
}

// writeTree writes files (path -> content, executable under hooks/) into a
// fresh folder and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := fs.FileMode(0o644)
		if strings.HasPrefix(name, "hooks/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// publish commits files to repository name on branch main and, if tag is
// set, tags that commit. It returns the commit.
func publish(t *testing.T, srv *gitserver.Server, name, tag string, files map[string]string) string {
	t.Helper()
	commit, err := srv.Commit(name, "main", writeTree(t, files), "version "+tag)
	if err != nil {
		t.Fatal(err)
	}
	if tag != "" {
		if err := srv.Tag(name, tag, false); err != nil {
			t.Fatal(err)
		}
	}
	return commit
}

// contentHash is the lock-file content hash the files hash to once
// installed.
func contentHash(t *testing.T, files map[string]string) string {
	t.Helper()
	d, err := plugins.HashDir(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return d.Sum
}

// lockMatchesDisk returns the problems between a scope's lock file and
// its plugins folder: an unreadable lock, a locked plugin whose folder is
// missing or hashes differently, an unlocked folder, a leftover of an
// interrupted command, and whatever plugins.Verify reports. Empty means
// consistent.
func lockMatchesDisk(s plugins.Scope) []string {
	var problems []string
	lock, err := plugins.ReadLock(s.LockPath())
	if err != nil {
		return []string{"lock file: " + err.Error()}
	}
	for _, k := range lock.Names() {
		n, _ := plugins.ParseName(k)
		d, err := plugins.HashDir(s.PluginDir(n))
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s is locked but its folder: %v", k, err))
		case d.Sum != lock.Plugins[k].Hash:
			problems = append(problems, fmt.Sprintf("%s: folder hashes to %s, the lock says %s", k, d.Sum, lock.Plugins[k].Hash))
		}
	}
	entries, err := os.ReadDir(s.PluginsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		problems = append(problems, err.Error())
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			problems = append(problems, "leftover "+e.Name())
			continue
		}
		n, err := plugins.ParseName(e.Name())
		if err != nil {
			problems = append(problems, "stray entry "+e.Name())
			continue
		}
		if _, ok := lock.Plugins[n.String()]; !ok {
			problems = append(problems, "unlocked folder "+e.Name())
		}
	}
	if tmps, _ := filepath.Glob(filepath.Join(s.Root, ".quiver.lock.tmp-*")); len(tmps) > 0 {
		problems = append(problems, fmt.Sprintf("lock file temp files %v", tmps))
	}
	res, err := plugins.Verify(s)
	if err != nil {
		problems = append(problems, "verify: "+err.Error())
	}
	for _, r := range res {
		if r.Status != "ok" {
			problems = append(problems, fmt.Sprintf("verify: %s is %s", r.Name, r.Status))
		}
	}
	sort.Strings(problems)
	return problems
}

// folderID identifies the directory at a path: which inode, and when its
// entries last changed (an inode number reused for a later version comes
// with a later mtime). Two equal IDs around a read mean no swap happened
// in between, so the read saw one version of the folder.
type folderID struct {
	ino, dev uint64
	mtime    int64
}

// identify returns the folderID at path; ok is false when nothing is
// there.
func identify(path string) (id folderID, ok bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return folderID{}, false, nil
	}
	if err != nil {
		return folderID{}, false, err
	}
	st, isUnix := fi.Sys().(*syscall.Stat_t)
	if !isUnix {
		return folderID{}, false, fmt.Errorf("no inode for %s", path)
	}
	return folderID{ino: st.Ino, dev: uint64(st.Dev), mtime: fi.ModTime().UnixNano()}, true, nil
}
