package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/gitwork"
)

// asQuiver makes a re-executed test binary behave as the quiver command, for
// tests that run quiver as a real process (the kill test).
const asQuiver = "QUIVER_TEST_AS_QUIVER"

// asMCP makes a re-executed test binary a minimal MCP server, the server
// of the plugin the real-agent tests install.
const asMCP = "QUIVER_TEST_AS_MCP"

// mcpNeeds names a variable that such a server refuses to start without.
const mcpNeeds = "QUIVER_TEST_MCP_NEEDS"

// asLSP makes a re-executed test binary a minimal language server, which
// first writes its own path and arguments to the file the variable names.
const asLSP = "QUIVER_TEST_AS_LSP"

func TestMain(m *testing.M) {
	if marker := os.Getenv(asLSP); marker != "" {
		os.WriteFile(marker, []byte(strings.Join(os.Args[1:], " ")), 0o644)
		if err := modelserver.ServeLSP(os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(asMCP) == "1" {
		// A server that needs a variable (a token) refuses to start
		// without it, as real ones do.
		if need := os.Getenv(mcpNeeds); need != "" && os.Getenv(need) == "" {
			fmt.Fprintf(os.Stderr, "%s is not set\n", need)
			os.Exit(1)
		}
		if err := modelserver.ServeMCP(os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The git helper, found on PATH as in an install (testscript links
	// it there), whatever the quiver that started it inherited.
	gitHelper := func() { os.Exit(gitwork.Main(os.Stdin, os.Stdout, os.Stderr, func() { os.Exit(3) })) }
	if filepath.Base(os.Args[0]) == plugins.GitHelper {
		gitHelper()
	}
	if os.Getenv(asQuiver) == "1" {
		os.Exit(quiverMain())
	}
	testscript.Main(topLevel{m}, map[string]func(){
		"quiver":          func() { os.Exit(quiverMain()) },
		plugins.GitHelper: gitHelper,
	})
}

// topLevel runs the tests in the test process that go test started (not
// in a quiver or server re-executed from it), with python3 found
// directly (directPython).
type topLevel struct{ m *testing.M }

func (t topLevel) Run() int {
	defer directPython()()
	return t.m.Run()
}

// directPython puts first in PATH, for the tests and every process they
// start, the python3 that the one in PATH runs in the end, when that one
// is a version manager's shim (pyenv's is a shell script that runs a
// dozen processes, 0.7 s of CPU, before python starts): the hooks written
// in python run hundreds of times in these tests, and a shim's start-up
// under load made a hook miss the 5 s it has to answer `hook`. The
// interpreter, and so what the hooks do, is the same. It returns a
// function that removes what it made.
func directPython() (cleanup func()) {
	cleanup = func() {}
	shim, err := exec.LookPath("python3")
	if err != nil {
		return cleanup
	}
	out, err := exec.Command(shim, "-c", "import sys; print(sys.executable)").Output()
	real := strings.TrimSpace(string(out))
	if err != nil || real == "" {
		return cleanup
	}
	if a, b := resolved(shim), resolved(real); a == b {
		return cleanup // python3 in PATH is no shim
	}
	dir, err := os.MkdirTemp("", "quiver-python-")
	if err != nil {
		return cleanup
	}
	if err := os.Symlink(real, filepath.Join(dir, "python3")); err != nil {
		os.RemoveAll(dir)
		return cleanup
	}
	os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	return func() { os.RemoveAll(dir) }
}

// resolved is path with every symlink followed, or path itself.
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/script"))
}

const serverKey = "gitserver"

func scriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			srv, err := gitserver.Start(filepath.Join(env.WorkDir, ".gitserver"), gitserver.Options{})
			if err != nil {
				return err
			}
			env.Defer(srv.Close)
			env.Values[serverKey] = srv
			env.Values[serveKey] = &scriptServe{}
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("QUIVER_HOME", filepath.Join(home, ".quiver"))
			env.Setenv("QUIVER_GIT_BASE", srv.URL)
			env.Setenv("GIT_URL", srv.URL)
			env.Setenv("GIT_HOSTPORT", strings.TrimPrefix(srv.URL, "http://"))
			env.Setenv("GIT_PORT", srv.URL[strings.LastIndex(srv.URL, ":")+1:])
			env.Setenv("EXAMPLE", examplePlugin(t))
			for _, k := range []string{"QUIVER_GIT_TOKEN", "GITHUB_TOKEN", "QUIVER_PROJECT_DIR"} {
				env.Setenv(k, "")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gitrepo":    cmdGitRepo,
			"gittag":     cmdGitTag,
			"gitsha":     cmdGitSHA,
			"gitauth":    cmdGitAuth,
			"snapshot":   cmdSnapshot,
			"unchanged":  cmdUnchanged,
			"lockmatch":  cmdLockMatch,
			"lockfield":  cmdLockField,
			"serve":      cmdServe,
			"hookserver": cmdHookServer,
			"machinedir": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: machinedir VAR")
				}
				project, err := plugins.ProjectDir("", ts.Getenv("QUIVER_PROJECT_DIR"), ts.MkAbs("."))
				ts.Check(err)
				ts.Setenv(args[0], plugins.ProjectMachineDir(ts.Getenv("QUIVER_HOME"), project))
			},
			"waitfiles": cmdWaitFiles,
			"gitrm": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: gitrm NAME")
				}
				ts.Check(server(ts).Remove(args[0]))
			},
			"gitdelref": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: gitdelref NAME REF")
				}
				ts.Check(server(ts).DeleteRef(args[0], args[1]))
			},
			"gitdown": func(ts *testscript.TestScript, neg bool, args []string) {
				server(ts).Close()
			},
			// gittagobject NAME TAG REV: tag whatever REV names (a tree, a
			// blob), as only a crafted repository would.
			"gittagobject": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: gittagobject NAME TAG REV")
				}
				ts.Check(server(ts).TagObject(args[0], args[1], args[2]))
			},
		},
	}
}

// cmdWaitFiles is `waitfiles N GLOB`: it returns once GLOB (relative to
// the script's folder) names at least N files, as a background owner's
// results appear, and fails after a minute. A bound, not a sleep: the
// script goes on as soon as they are there.
func cmdWaitFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfiles N GLOB")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline := time.Now().Add(time.Minute)
	for {
		matches, err := filepath.Glob(ts.MkAbs(args[1]))
		ts.Check(err)
		if len(matches) >= n {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("after a minute %d of %d files match %s", len(matches), n, args[1])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// seeded is a random source for one test, seeded from QUIVER_TEST_SEED or
// the clock, with the seed in the test's log: a failure at a random kill
// point or order is repeated by setting the variable.
func seeded(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("QUIVER_TEST_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("QUIVER_TEST_SEED=%q", s)
		}
		seed = n
	}
	t.Logf("random seed %d (QUIVER_TEST_SEED=%d repeats it)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// examplePlugin is the absolute path of the bundled example plugin.
func examplePlugin(t *testing.T) string {
	p, err := filepath.Abs("../../testdata/plugins/guard")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func server(ts *testscript.TestScript) *gitserver.Server {
	return ts.Value(serverKey).(*gitserver.Server)
}

// gitrepo NAME DIR [BRANCH]: commit the files of DIR to repository NAME on
// the loopback server (branch main unless given), creating it if needed.
func cmdGitRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: gitrepo NAME DIR [BRANCH]")
	}
	branch := ""
	if len(args) == 3 {
		branch = args[2]
	}
	_, err := server(ts).Commit(args[0], branch, ts.MkAbs(args[1]), "commit "+args[1])
	ts.Check(err)
}

// gittag [-a] NAME TAG: tag the last commit of NAME (annotated with -a).
func cmdGitTag(ts *testscript.TestScript, neg bool, args []string) {
	annotated := len(args) > 0 && args[0] == "-a"
	if annotated {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gittag [-a] NAME TAG")
	}
	ts.Check(server(ts).Tag(args[0], args[1], annotated))
}

// gitsha NAME REV VAR [LEN]: set $VAR to the commit REV of NAME, cut to
// LEN hex digits when given.
func cmdGitSHA(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: gitsha NAME REV VAR [LEN]")
	}
	sha, err := server(ts).RevParse(args[0], args[1])
	ts.Check(err)
	if len(args) == 4 {
		n, err := strconv.Atoi(args[3])
		ts.Check(err)
		sha = sha[:n]
	}
	ts.Setenv(args[2], sha)
}

// gitauth USER PASS: make the server require basic auth ("gitauth off").
func cmdGitAuth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: gitauth USER PASS | gitauth off")
	}
	if args[0] == "off" {
		server(ts).SetAuth("", "")
		return
	}
	server(ts).SetAuth(args[0], args[1])
}

// snapshot DIR: remember every path, mode and content under DIR.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: snapshot DIR")
	}
	ts.Setenv("SNAPSHOT_"+envKey(args[0]), treeState(ts, ts.MkAbs(args[0])))
}

// unchanged DIR: fail unless DIR is exactly as at its snapshot; this is how
// scripts prove a failed command left nothing behind.
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: unchanged DIR")
	}
	before := ts.Getenv("SNAPSHOT_" + envKey(args[0]))
	now := treeState(ts, ts.MkAbs(args[0]))
	if (before == now) == neg {
		ts.Fatalf("%s changed=%v\nbefore:\n%s\nnow:\n%s", args[0], before != now, before, now)
	}
}

// lockmatch SCOPE_ROOT NAME: the lock entry of NAME has a hash equal to the
// plugin folder's content hash.
func cmdLockMatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lockmatch SCOPE_ROOT NAME")
	}
	root, name := args[0], args[1]
	n, err := plugins.ParseName(name)
	ts.Check(err)
	s := plugins.Scope{Root: ts.MkAbs(root)}
	lock, err := plugins.ReadLock(s.LockPath())
	ts.Check(err)
	e, ok := lock.Plugins[n.String()]
	if !ok {
		ts.Fatalf("no lock entry for %s", n)
	}
	d, err := plugins.HashDir(s.PluginDir(n))
	ts.Check(err)
	if d.Sum != e.Hash {
		ts.Fatalf("lock hash %s != folder hash %s", e.Hash, d.Sum)
	}
}

// lockfield SCOPE_ROOT NAME FIELD VALUE: the lock entry of NAME has FIELD
// (source, ref, commit, path, marketplace) equal to VALUE, as quiver reads
// the file: YAML may quote a value that looks like a number (a short SHA
// such as 660247e94), so a story compares values, never the file's text.
func cmdLockField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: lockfield SCOPE_ROOT NAME FIELD VALUE")
	}
	s := plugins.Scope{Root: ts.MkAbs(args[0])}
	lock, err := plugins.ReadLock(s.LockPath())
	ts.Check(err)
	e, ok := lock.Plugins[args[1]]
	if !ok {
		ts.Fatalf("no lock entry for %s", args[1])
	}
	got := map[string]string{"source": e.Source, "ref": e.Ref, "commit": e.Commit, "path": e.Path, "marketplace": e.Marketplace}
	v, known := got[args[2]]
	if !known {
		ts.Fatalf("lockfield: unknown field %s", args[2])
	}
	if (v == args[3]) == neg {
		ts.Fatalf("lock entry %s: %s is %q, want %q (negated: %v)", args[1], args[2], v, args[3], neg)
	}
}

func envKey(p string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, p)
}

// treeState describes a folder: one line per entry with its mode and a
// content hash, sorted; "(absent)" when it does not exist.
func treeState(ts *testscript.TestScript, dir string) string {
	var lines, stores []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		// The machine's store is a cache that any fetch may fill, a
		// refused one too (as Go's module cache or npm's): what is in it
		// is checked at every use, so filling it changes no state.
		if e.IsDir() && e.Name() == "store" && (filepath.Base(filepath.Dir(p)) == ".quiver" || filepath.Dir(p) == ts.Getenv("QUIVER_HOME")) {
			stores = append(stores, rel)
			return filepath.SkipDir
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %s", rel, info.Mode())
		switch {
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", data)
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	if os.IsNotExist(err) {
		return "(absent)"
	}
	ts.Check(err)
	// The folders made only to hold the store are not a change either.
	var keep []string
	for _, line := range lines {
		if rel, _, _ := strings.Cut(line, " "); !onlyToStore(rel, lines, stores) {
			keep = append(keep, line)
		}
	}
	lines = keep
	if len(lines) == 0 {
		return "(absent)"
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// onlyToStore reports whether folder rel leads to one of stores and holds
// nothing else: every line under it is a folder on the way to one.
func onlyToStore(rel string, lines, stores []string) bool {
	under := func(p, dir string) bool { return dir == "." || strings.HasPrefix(p, dir+string(filepath.Separator)) }
	toStore := func(p string) bool {
		return slices.ContainsFunc(stores, func(st string) bool { return under(st, p) })
	}
	if !toStore(rel) {
		return false
	}
	for _, line := range lines {
		o, _, _ := strings.Cut(line, " ")
		if o != rel && under(o, rel) && !toStore(o) {
			return false
		}
	}
	return true
}
