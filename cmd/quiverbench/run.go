package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
)

type options struct {
	sizes  string
	runs   int
	json   bool
	quiver string
	keep   bool
}

// result is one line of the report.
type result struct {
	Name   string  `json:"name"`
	N      int     `json:"n,omitempty"`
	Runs   int     `json:"runs"`
	Unit   string  `json:"unit"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Target string  `json:"target,omitempty"`
	Met    *bool   `json:"met,omitempty"`
}

type bench struct {
	o       options
	tmp     string
	quiver  string
	payload string
	results []result
}

const payload = `{"tool_name":"bash","tool_input":{"command":"ls -la /tmp"},"conv_id":"bench","tool_user_id":"u"}`

func run(o options) error {
	if o.runs < 1 {
		o.runs = 1
	}
	var sizes []int
	for _, s := range strings.Split(o.sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("--n: %q is not a positive number", s)
		}
		sizes = append(sizes, n)
	}
	tmp, err := os.MkdirTemp("", "quiverbench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintf(os.Stderr, "quiverbench: keeping %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	b := &bench{o: o, tmp: tmp, quiver: o.quiver, payload: filepath.Join(tmp, "payload.json")}
	if err := os.WriteFile(b.payload, []byte(payload), 0o644); err != nil {
		return err
	}
	if b.quiver == "" {
		b.quiver = filepath.Join(tmp, "quiver")
		progress("building quiver")
		if out, err := exec.Command("go", "build", "-o", b.quiver, "github.com/quiver-cli/quiver/cmd/quiver").CombinedOutput(); err != nil {
			return fmt.Errorf("build quiver: %v\n%s", err, out)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	goHook := filepath.Join(tmp, "gohook-binary")
	if err := copyFile(self, goHook, 0o755); err != nil {
		return err
	}
	for _, n := range sizes {
		if err := b.discovery(n, goHook); err != nil {
			return err
		}
	}
	if err := b.hookRun(sizes[0], goHook); err != nil {
		return err
	}
	if err := b.pluginAdd(); err != nil {
		return err
	}
	return b.report()
}

func progress(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "quiverbench: "+format+"\n", a...)
}

// env is the environment quiver runs in: this one, with quiver's
// variables pointing at the generated trees.
func (b *bench) env(home, project string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "QUIVER_") && !strings.HasPrefix(kv, "GITHUB_TOKEN=") {
			env = append(env, kv)
		}
	}
	return append(env, "QUIVER_HOME="+home, "QUIVER_PROJECT_DIR="+project)
}

// timed runs a command once and returns its wall time and peak RSS (KiB).
func timed(env []string, stdin []byte, name string, args ...string) (time.Duration, int64, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, 0, fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
		if runtime.GOOS == "darwin" {
			rss /= 1024 // bytes there, KiB on Linux
		}
	}
	return d, rss, nil
}

// repeat measures f runs times.
func repeat(runs int, f func() (time.Duration, error)) ([]float64, error) {
	var ms []float64
	for range runs {
		d, err := f()
		if err != nil {
			return nil, err
		}
		ms = append(ms, float64(d.Microseconds())/1000)
	}
	return ms, nil
}

func (b *bench) add(name string, n int, unit string, samples []float64, target string, met *bool) result {
	s := slices.Clone(samples)
	slices.Sort(s)
	r := result{Name: name, N: n, Runs: len(s), Unit: unit, Median: s[len(s)/2], Min: s[0], Max: s[len(s)-1], Target: target, Met: met}
	b.results = append(b.results, r)
	return r
}

func check(ok bool) *bool { return &ok }

func (b *bench) discovery(n int, goHook string) error {
	home := filepath.Join(b.tmp, fmt.Sprintf("home-%d", n))
	project := filepath.Join(b.tmp, fmt.Sprintf("project-%d", n))
	os.MkdirAll(project, 0o755)
	progress("generating %d plugins", n)
	if err := genHome(home, n, goHook); err != nil {
		return err
	}
	env := b.env(home, project)
	list := func() (time.Duration, error) {
		d, _, err := timed(env, nil, b.quiver, "hook", "list", "--json")
		return d, err
	}
	slow := max(1, min(b.o.runs, 3))
	progress("discovery, cold cache, N=%d", n)
	cold, err := repeat(slow, func() (time.Duration, error) {
		os.RemoveAll(filepath.Join(home, "cache"))
		return list()
	})
	if err != nil {
		return err
	}
	b.add("discovery: hook list, cold cache", n, "ms", cold, "", nil)
	progress("discovery, warm cache, N=%d", n)
	warm, err := repeat(b.o.runs, list)
	if err != nil {
		return err
	}
	var hooks []string
	filepath.WalkDir(filepath.Join(home, "plugins"), func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && filepath.Base(filepath.Dir(p)) == "hooks" {
			hooks = append(hooks, p)
		}
		return nil
	})
	progress("baseline: asking %d hooks one by one, N=%d", len(hooks), n)
	base, err := repeat(1, func() (time.Duration, error) {
		start := time.Now()
		for _, h := range hooks {
			if out, err := exec.Command(h, "hook").Output(); err != nil || len(out) == 0 {
				return 0, fmt.Errorf("%s hook: %v", h, err)
			}
		}
		return time.Since(start), nil
	})
	if err != nil {
		return err
	}
	w := b.add("discovery: hook list, warm cache", n, "ms", warm, "", nil)
	bl := b.add("discovery baseline: ask every hook `hook`", n, "ms", base, "", nil)
	ratio := bl.Median / w.Median
	var met *bool
	target := ""
	if n == 1000 {
		target, met = "warm < 20 ms and >= 100x faster than the baseline", check(w.Median < 20 && ratio >= 100)
	}
	b.add("discovery speed-up: baseline / warm", n, "x", []float64{ratio}, target, met)

	for _, kind := range []string{"skill", "recipe"} {
		ls := func() (time.Duration, error) {
			d, _, err := timed(env, nil, b.quiver, kind, "list", "--json")
			return d, err
		}
		ls() // warm
		ms, err := repeat(b.o.runs, ls)
		if err != nil {
			return err
		}
		r := b.add(kind+" list --json, warm", n, "ms", ms, "", nil)
		if n == 1000 {
			last := &b.results[len(b.results)-1]
			last.Target, last.Met = "< 50 ms", check(r.Median < 50)
		}
	}
	for _, args := range [][]string{{"hook", "list", "--json"}, {"hook", "run", "after_tool_call", "--payload", b.payload}} {
		var rss []float64
		for range slow {
			_, kb, err := timed(env, nil, b.quiver, args...)
			if err != nil {
				return err
			}
			rss = append(rss, float64(kb)/1024)
		}
		b.add("peak RSS: quiver "+strings.Join(args[:2], " "), n, "MiB", rss, "", nil)
	}
	return nil
}

// hookRun measures `quiver hook run` end to end with k matching hooks
// against spawning the same hooks directly (the floor).
func (b *bench) hookRun(n int, goHook string) error {
	home := filepath.Join(b.tmp, fmt.Sprintf("home-%d", n))
	project := filepath.Join(b.tmp, fmt.Sprintf("project-%d", n))
	env := b.env(home, project)
	body := []byte(payload)
	var t0 float64
	for _, k := range []int{0, 1, 10, 50} {
		paths, err := genMatching(home, k)
		if err != nil {
			return err
		}
		runHook := func() (time.Duration, error) {
			d, _, err := timed(env, nil, b.quiver, "hook", "run", "before_tool_call", "--payload", b.payload)
			return d, err
		}
		runHook() // warm the type cache
		progress("hook run with %d matching hooks, N=%d", k, n)
		ms, err := repeat(b.o.runs, runHook)
		if err != nil {
			return err
		}
		r := b.add(fmt.Sprintf("hook run, %d matching hooks", k), n, "ms", ms, "", nil)
		if k == 0 && n == 100 {
			last := &b.results[len(b.results)-1]
			last.Target, last.Met = "< 10 ms", check(r.Median < 10)
		}
		if k == 0 {
			t0 = r.Median
			continue
		}
		floor, err := repeat(b.o.runs, func() (time.Duration, error) {
			start := time.Now()
			for _, p := range paths {
				cmd := exec.Command(p, "run")
				cmd.Stdin = bytes.NewReader(body)
				if err := cmd.Run(); err != nil {
					return 0, err
				}
			}
			return time.Since(start), nil
		})
		if err != nil {
			return err
		}
		f := b.add(fmt.Sprintf("floor: spawn the %d hooks directly", k), n, "ms", floor, "", nil)
		perHook := (r.Median - t0) / float64(k)
		ratio := perHook / (f.Median / float64(k))
		var met *bool
		target := ""
		if k == 10 {
			target, met = "<= 1.25x", check(ratio <= 1.25)
		}
		b.add(fmt.Sprintf("hook run per-hook cost / direct spawn, %d hooks", k), n, "x", []float64{ratio}, target, met)
	}
	_, err := genMatching(home, 0)
	return err
}

// pluginAdd compares installing a 200-file plugin over the loopback git
// server with git clone --depth 1 of the same URL.
func (b *bench) pluginAdd() error {
	srv, err := gitserver.Start(filepath.Join(b.tmp, "git"), gitserver.Options{})
	if err != nil {
		return err
	}
	defer srv.Close()
	src := filepath.Join(b.tmp, "repo-src")
	for i := range 200 {
		p := filepath.Join(src, "recipes", fmt.Sprintf("group%d", i%10), fmt.Sprintf("recipe%03d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line %d of recipe %d\n", i, i), 30)), 0o644); err != nil {
			return err
		}
	}
	if _, err := srv.Commit("acme/bench", "main", src, "200 files"); err != nil {
		return err
	}
	project := filepath.Join(b.tmp, "project-add")
	os.MkdirAll(project, 0o755)
	env := append(b.env(filepath.Join(b.tmp, "home-add"), project), "QUIVER_GIT_BASE="+srv.URL)
	progress("plugin add of a 200-file repository vs git clone --depth 1")
	runs := max(1, min(b.o.runs, 5))
	add, err := repeat(runs, func() (time.Duration, error) {
		d, _, err := timed(env, nil, b.quiver, "plugin", "add", "--force", "-q", "acme/bench")
		return d, err
	})
	if err != nil {
		return err
	}
	i := 0
	clone, err := repeat(runs, func() (time.Duration, error) {
		i++
		d, _, err := timed(os.Environ(), nil, "git", "clone", "-q", "--depth", "1", srv.RepoURL("acme/bench"), filepath.Join(b.tmp, fmt.Sprintf("clone-%d", i)))
		return d, err
	})
	if err != nil {
		return err
	}
	a := b.add("plugin add, 200 files, loopback git", 0, "ms", add, "", nil)
	c := b.add("git clone --depth 1, same repository", 0, "ms", clone, "", nil)
	ratio := a.Median / c.Median
	b.add("plugin add / git clone", 0, "x", []float64{ratio}, "<= 2.5x", check(ratio <= 2.5))
	return nil
}

func (b *bench) report() error {
	if b.o.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"machine": map[string]any{"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "go": runtime.Version()},
			"results": b.results,
		})
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "MEASUREMENT\tN\tMEDIAN\tMIN\tMAX\tRUNS\tTARGET\n")
	for _, r := range b.results {
		n := "-"
		if r.N > 0 {
			n = strconv.Itoa(r.N)
		}
		target := r.Target
		if r.Met != nil {
			if *r.Met {
				target += "  met"
			} else {
				target += "  NOT MET"
			}
		}
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " " + r.Unit }
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Name, n, f(r.Median), f(r.Min), f(r.Max), r.Runs, target)
	}
	fmt.Fprintf(w, "\n%s/%s, %d CPUs, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	return w.Flush()
}
