package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
)

type options struct {
	sizes    string
	runs     int
	json     bool
	quiver   string
	baseline string
	keep     bool
	// only names the groups of rows to run ("" for all).
	only string
}

// result is one line of the report. A ratio row names the rows it
// divides; a row that could not be measured has Error instead of numbers.
type result struct {
	Name        string  `json:"name"`
	N           int     `json:"n,omitempty"`
	Runs        int     `json:"runs"`
	Unit        string  `json:"unit"`
	Median      float64 `json:"median"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
	Numerator   string  `json:"numerator,omitempty"`
	Denominator string  `json:"denominator,omitempty"`
	Target      string  `json:"target,omitempty"`
	Met         *bool   `json:"met,omitempty"`
	Error       string  `json:"error,omitempty"`
}

type bench struct {
	o       options
	tmp     string
	quiver  string
	payload string
	goHook  string
	// small and large are the plugin counts that the 100- and
	// 1,000-plugin targets are measured at: those two when --n has them,
	// else the nearest --n (a smoke run has only a few plugins).
	small, large int
	// baseline is quiver built from --baseline ("" for none); echo is
	// the JSON-RPC echo server, the floor of the serve rows.
	baseline, echo string
	emptyBin       string
	// spawner is this binary as spawnName.
	spawner string
	// linkFloor is buildLinkFloor's program.
	linkFloor string
	// launcher starts a command and writes its peak RSS (peakRSS).
	launcher string
	// empty is the start of an empty Go program, the floor of any Go
	// command; serveErr says why there is no `hook serve` to measure.
	empty    result
	serveErr error
	results  []result
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
	b := &bench{o: o, tmp: tmp, quiver: o.quiver, payload: filepath.Join(tmp, "payload.json"), goHook: filepath.Join(tmp, "gohook-binary")}
	b.small, b.large = nearest(sizes, 100), nearest(sizes, 1000)
	if err := os.WriteFile(b.payload, []byte(payload), 0o644); err != nil {
		return err
	}
	if b.quiver == "" {
		progress("building quiver and quiver-git (CGO_ENABLED=0)")
		if b.quiver, err = buildQuiver("", filepath.Join(tmp, "bin")); err != nil {
			return err
		}
	}
	if o.baseline != "" && o.baseline != "none" {
		progress("building quiver at %s, the baseline", o.baseline)
		if b.baseline, err = buildBaseline(tmp, o.baseline); err != nil {
			return err
		}
	}
	progress("building an empty Go program")
	empty, err := buildEmpty(tmp)
	if err != nil {
		return err
	}
	b.emptyBin = empty
	progress("building the link floor: hook run's packages, nothing run")
	if b.linkFloor, err = buildLinkFloor(tmp); err != nil {
		return err
	}
	if b.launcher, err = buildLauncher(tmp); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := copyFile(self, b.goHook, 0o755); err != nil {
		return err
	}
	b.echo = filepath.Join(tmp, echoName)
	if err := os.Link(b.goHook, b.echo); err != nil {
		return err
	}
	b.spawner = filepath.Join(tmp, spawnName)
	if err := os.Link(b.goHook, b.spawner); err != nil {
		return err
	}
	groups := []group{
		{"startup", func() error { return b.startup(empty) }},
		{"sizes", b.sizes},
		{"discovery", func() error {
			for _, n := range sizes {
				if err := b.discovery(n); err != nil {
					return err
				}
			}
			return nil
		}},
		{"hookrun", func() error { return b.hookRun(b.small) }},
		{"persistent", b.persistent},
		{"add", b.pluginAdd},
		{"network", b.network},
	}
	want := map[string]bool{}
	for _, g := range strings.Split(o.only, ",") {
		if g = strings.TrimSpace(g); g != "" {
			if !slices.ContainsFunc(groups, func(x group) bool { return x.name == g }) {
				return fmt.Errorf("--only: no group %q", g)
			}
			want[g] = true
		}
	}
	if len(want) == 0 || want["hookrun"] || want["persistent"] {
		if b.serveErr = b.checkServe(); b.serveErr != nil {
			progress("%v", b.serveErr)
		}
	}
	for _, g := range groups {
		if len(want) > 0 && !want[g.name] {
			continue
		}
		if err := g.run(); err != nil {
			return err
		}
	}
	return b.report()
}

// group is a group of rows, run or left out together (--only).
type group struct {
	name string
	run  func() error
}

func progress(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "quiverbench: "+format+"\n", a...)
}

// nearest returns the size closest to want, by ratio.
func nearest(sizes []int, want int) int {
	best := sizes[0]
	for _, n := range sizes {
		if math.Abs(math.Log(float64(n)/float64(want))) < math.Abs(math.Log(float64(best)/float64(want))) {
			best = n
		}
	}
	return best
}

// tree returns the home and project folders generated for n plugins.
func (b *bench) tree(n int) (home, project string) {
	return filepath.Join(b.tmp, fmt.Sprintf("home-%d", n)), filepath.Join(b.tmp, fmt.Sprintf("project-%d", n))
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

// timed runs a command once and returns its wall time.
func timed(env []string, stdin []byte, name string, args ...string) (time.Duration, error) {
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
		return d, fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return d, nil
}

// peakRSS runs a command once through the launcher and returns its peak
// RSS in MiB. Not directly: a process started from this one inherits the
// high-water mark of this one's memory (os/exec's clone shares it until
// exec, and Linux keeps the larger mark across exec), so every command
// would measure at least this program's RSS, which grows with the trees
// it generated. The launcher is a small program that starts the command
// and writes the child's ru_maxrss (KiB) to a file.
func (b *bench) peakRSS(env []string, name string, args ...string) (float64, error) {
	out := filepath.Join(b.tmp, "maxrss")
	if _, err := timed(env, nil, b.launcher, append([]string{out, name}, args...)...); err != nil {
		return 0, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return 0, err
	}
	kib, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil {
		return 0, fmt.Errorf("launcher: %q: %v", data, err)
	}
	if runtime.GOOS == "darwin" {
		kib /= 1024 // bytes there, KiB on Linux
	}
	return kib / 1024, nil
}

// command returns a probe's run: one process of argv (nil env: this one).
func command(env []string, stdin []byte, argv ...string) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		return timed(env, stdin, argv[0], argv[1:]...)
	}
}

// spawnAll returns a probe's run: each hook's `run`, one after the other,
// the payload on stdin, the way quiver runs them.
func spawnAll(hooks []string, body []byte) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		start := time.Now()
		for _, p := range hooks {
			cmd := exec.Command(p, "run")
			cmd.Stdin = bytes.NewReader(body)
			if err := cmd.Run(); err != nil {
				return 0, fmt.Errorf("%s run: %v", p, err)
			}
		}
		return time.Since(start), nil
	}
}

// probe is one thing to time: its row's name and one run of it.
type probe struct {
	name string
	run  func() (time.Duration, error)
	// fresh says each run makes its own state (a cold cache), so a
	// warm-up run would only cost time.
	fresh bool
}

// measure runs each probe once untimed (caches, the page cache, a
// server's first request), then runs rounds of every probe in turn, so
// that a change in the machine's load falls on a measurement and its
// floor alike, and adds a row per probe.
func (b *bench) measure(n, runs int, probes ...probe) ([]result, error) {
	for _, p := range probes {
		if p.fresh {
			continue
		}
		if _, err := p.run(); err != nil {
			return nil, err
		}
	}
	samples := make([][]float64, len(probes))
	for range runs {
		for i, p := range probes {
			d, err := p.run()
			if err != nil {
				return nil, err
			}
			samples[i] = append(samples[i], float64(d)/float64(time.Millisecond))
		}
	}
	rs := make([]result, len(probes))
	for i, p := range probes {
		rs[i] = b.add(p.name, n, "ms", samples[i])
	}
	return rs, nil
}

func (b *bench) add(name string, n int, unit string, samples []float64) result {
	s := slices.Clone(samples)
	slices.Sort(s)
	r := result{Name: name, N: n, Runs: len(s), Unit: unit, Median: s[len(s)/2], Min: s[0], Max: s[len(s)-1]}
	b.results = append(b.results, r)
	return r
}

// goal is a ratio's target: its text in the report and its test. The zero
// goal is no target.
type goal struct {
	text string
	ok   func(float64) bool
}

func atMost(limit float64, text string) goal {
	return goal{"<= " + text, func(r float64) bool { return r <= limit }}
}

func atLeast(limit float64, text string) goal {
	return goal{">= " + text, func(r float64) bool { return r >= limit }}
}

// when returns g if cond holds (the row is at the size or hook count the
// target is about), else no goal.
func (g goal) when(cond bool) goal {
	if !cond {
		return goal{}
	}
	return g
}

// ratio adds a ratio row, v, computed from num and den, with its goal.
func (b *bench) ratio(name string, n int, num, den result, v float64, g goal) {
	r := result{Name: name, N: n, Runs: min(num.Runs, den.Runs), Unit: "x", Median: v, Min: v, Max: v, Numerator: num.Name, Denominator: den.Name, Target: g.text}
	if g.ok != nil {
		ok := g.ok(v)
		r.Met = &ok
	}
	b.results = append(b.results, r)
}

// missing adds a row that could not be measured, and why.
func (b *bench) missing(name string, n int, g goal, err error) {
	b.results = append(b.results, result{Name: name, N: n, Target: g.text, Error: err.Error()})
}

// startup measures process start: `quiver version` against an empty Go
// program built by the same toolchain.
func (b *bench) startup(empty string) error {
	progress("start-up: quiver version vs an empty Go program")
	probes := []probe{
		{name: "quiver version", run: command(nil, nil, b.quiver, "version")},
		{name: "floor: empty Go program", run: command(nil, nil, empty)},
	}
	if b.baseline != "" {
		probes = append(probes, probe{name: "baseline quiver version", run: command(nil, nil, b.baseline, "version")})
	}
	probes = append(probes, probe{name: "link floor: hook run's packages linked, nothing run", run: command(nil, nil, b.linkFloor)})
	rs, err := b.measure(0, b.o.runs*10, probes...)
	if err != nil {
		return err
	}
	b.empty = rs[1]
	b.ratio("quiver version / empty Go program", 0, rs[0], rs[1], rs[0].Median/rs[1].Median, atMost(1.5, "1.5x"))
	if b.baseline != "" {
		b.ratio("baseline quiver version / empty Go program", 0, rs[2], rs[1], rs[2].Median/rs[1].Median, goal{})
		b.ratio("quiver version / baseline", 0, rs[0], rs[2], rs[0].Median/rs[2].Median, goal{})
	}
	floor := rs[len(rs)-1]
	b.ratio("link floor of hook run's packages / empty Go program", 0, floor, rs[1], floor.Median/rs[1].Median, goal{})
	b.ratio("quiver version / link floor", 0, rs[0], floor, rs[0].Median/floor.Median, goal{})
	return nil
}

// sizes reports the binaries' sizes: quiver's must not grow beside the
// baseline's. quiver-git is reported apart: agents never start it.
func (b *bench) sizes() error {
	size := func(name, path string) (result, error) {
		mib, err := fileMiB(path)
		if err != nil {
			return result{}, err
		}
		return b.add(name, 0, "MiB", []float64{mib}), nil
	}
	q, err := size("binary size: quiver", b.quiver)
	if err != nil {
		return err
	}
	if _, err := size("binary size: quiver-git (git work only)", filepath.Join(filepath.Dir(b.quiver), "quiver-git")); err != nil {
		progress("no quiver-git beside %s", b.quiver)
	}
	if _, err := size("binary size: link floor (hook run's packages, nothing run)", b.linkFloor); err != nil {
		return err
	}
	if b.baseline == "" {
		return nil
	}
	base, err := size("binary size: baseline quiver", b.baseline)
	if err != nil {
		return err
	}
	b.ratio("quiver size / baseline", 0, q, base, q.Median/base.Median, atMost(1, "1x"))
	return nil
}

// discovery measures listings over n plugins: hook discovery with a cold
// cache against asking every hook its event, and warm listings against
// find reading the same metadata.
func (b *bench) discovery(n int) error {
	home, project := b.tree(n)
	os.MkdirAll(project, 0o755)
	progress("generating %d plugins", n)
	if err := genHome(home, n, b.goHook); err != nil {
		return err
	}
	env := b.env(home, project)
	list := command(env, nil, b.quiver, "hook", "list", "--json")
	slow := max(1, min(b.o.runs, 3))
	progress("discovery, cold cache, N=%d", n)
	cold, err := b.measure(n, slow, probe{name: "hook list --json, cold cache", fresh: true, run: func() (time.Duration, error) {
		os.RemoveAll(filepath.Join(home, "cache"))
		return list()
	}})
	if err != nil {
		return err
	}
	hooks, _ := filepath.Glob(filepath.Join(home, "plugins", "*", "hooks", "*"))
	progress("asking %d hooks one by one, N=%d", len(hooks), n)
	base, err := b.measure(n, 1, probe{name: "floor: ask every hook `hook`, one by one", fresh: true, run: func() (time.Duration, error) {
		start := time.Now()
		for _, h := range hooks {
			if out, err := exec.Command(h, "hook").Output(); err != nil || len(out) == 0 {
				return 0, fmt.Errorf("%s hook: %v", h, err)
			}
		}
		return time.Since(start), nil
	}})
	if err != nil {
		return err
	}
	b.ratio("hook list cold / asking every hook", n, cold[0], base[0], cold[0].Median/base[0].Median, goal{})

	// Each listing's floor is find given the folders the listing must
	// read, printing the metadata of the files it must stat.
	for _, l := range []struct {
		kind, folder string
		find         []string
		goal         goal
	}{
		{"hook", "hooks", []string{"-mindepth", "1", "-maxdepth", "1", "-type", "f"}, atMost(1, "1.0x")},
		// A listing stats skills/<name>/SKILL.md without reading the
		// skill's folder; find cannot, so it stats the folder instead:
		// the same reads and one stat per skill.
		{"skill", "skills", []string{"-mindepth", "1", "-maxdepth", "1"}, atMost(1.5, "1.5x")},
		{"recipe", "recipes", []string{"-type", "f", "-name", "*.md"}, goal{}},
	} {
		dirs, _ := filepath.Glob(filepath.Join(home, "plugins", "*", l.folder))
		progress("%s list, warm cache, vs find, N=%d", l.kind, n)
		rs, err := b.measure(n, b.o.runs,
			probe{name: l.kind + " list --json, warm cache", run: command(env, nil, b.quiver, l.kind, "list", "--json")},
			probe{name: fmt.Sprintf("floor: find over the %d %s folders", len(dirs), l.folder), run: command(nil, nil, findArgs(dirs, l.find...)...)})
		if err != nil {
			return err
		}
		b.ratio(l.kind+" list warm / find", n, rs[0], rs[1], rs[0].Median/rs[1].Median, l.goal.when(n == b.large))
	}
	for _, args := range [][]string{{"hook", "list", "--json"}, {"hook", "run", "after_tool_call", "--payload", b.payload}} {
		var rss []float64
		for range slow {
			mib, err := b.peakRSS(env, b.quiver, args...)
			if err != nil {
				return err
			}
			rss = append(rss, mib)
		}
		b.add("peak RSS: quiver "+strings.Join(args[:2], " "), n, "MiB", rss)
	}
	return nil
}

// findArgs is find over dirs, printing size, mtime and mode of each file
// that passes tests (GNU find; -ls elsewhere).
func findArgs(dirs []string, tests ...string) []string {
	args := append(append([]string{"find"}, dirs...), tests...)
	if runtime.GOOS == "linux" {
		return append(args, "-printf", "%s %T@ %m %p\n")
	}
	return append(args, "-ls")
}

// hookRun measures `quiver hook run` and `hook serve`'s run with k
// matching hooks against spawning the same hooks directly (the floor).
// Quiver's cost per hook is (T(k hooks) - T(0 hooks)) / k over the direct
// spawn time per hook.
func (b *bench) hookRun(n int) error {
	home, project := b.tree(n)
	env := b.env(home, project)
	var serve0 result
	hookRun := []string{"hook", "run", "before_tool_call", "--payload", b.payload}
	// No generated hook handles session_start (treeEvents).
	idleRun := []string{"hook", "run", "session_start", "--payload", b.payload}
	baseEnv, err := b.baselineHome(n)
	if err != nil {
		return err
	}
	if err := b.hookRunRSS(n, env, baseEnv, hookRun); err != nil {
		return err
	}
	for _, k := range []int{0, 1, 10, 50} {
		paths, err := genMatching(home, k)
		if err != nil {
			return err
		}
		probes := []probe{{name: fmt.Sprintf("hook run, %d matching hooks", k), run: command(env, nil, append([]string{b.quiver}, hookRun...)...)}}
		if k > 0 {
			// The floor, and quiver's own cost in the same rounds: the
			// same home and discovery, for an event none of its hooks
			// handles (a T(0) from other rounds would carry their load).
			// The same floor from a fresh process, less that process
			// spawning nothing: what T(k) - T(0) is, a fresh Go
			// process's spawns, whose first ones run cold code.
			probes = append(probes,
				probe{name: fmt.Sprintf("floor: spawn the %d hooks directly", k), run: spawnAll(paths, []byte(payload))},
				probe{name: fmt.Sprintf("hook run, 0 matching hooks beside the %d", k), run: command(env, nil, append([]string{b.quiver}, idleRun...)...)},
				probe{name: fmt.Sprintf("a fresh Go process spawning the %d hooks", k), run: command(nil, []byte(payload), append([]string{b.spawner}, paths...)...)},
				probe{name: "the same process spawning none", run: command(nil, []byte(payload), b.spawner)})
		} else {
			// The floor in the same rounds, and the baseline beside.
			probes = append(probes, probe{name: "floor: empty Go program", run: command(nil, nil, b.emptyBin)})
			if b.baseline != "" {
				probes = append(probes, probe{name: "baseline hook run, 0 matching hooks", run: command(baseEnv, nil, append([]string{b.baseline}, hookRun...)...)})
			}
		}
		serveName := fmt.Sprintf("hook serve run, %d matching hooks, per request", k)
		var srv *server
		if b.serveErr == nil {
			if srv, err = startServer(b.quiver, env); err != nil {
				return err
			}
			// Many requests per sample where each is quick: a sample
			// is then long enough to time well.
			requests := 1
			if k == 0 {
				requests = 100
			} else if k < 10 {
				requests = 10 / k
			}
			probes = append(probes, probe{name: serveName, run: srv.runs(requests, k)})
		}
		var echo *server
		if k == 0 && b.serveErr == nil {
			// The floor of serve: a minimal Go JSON-RPC server over the
			// same pipes, asked the same requests (its answer echoes
			// the params: no hooks, as k = 0 wants).
			if echo, err = startProgram(nil, b.echo); err != nil {
				return err
			}
			probes = append(probes, probe{name: "floor: Go JSON-RPC echo over the same pipes, per request", run: echo.runs(100, 0)})
		}
		progress("hook run with %d matching hooks, N=%d", k, n)
		rs, err := b.measure(n, b.o.runs, probes...)
		srv.close()
		echo.close()
		if err != nil {
			return err
		}
		one, floor := rs[0], rs[min(1, k)]
		// The serve row's ratio: to one-shot hook run without hooks, per
		// hook to the direct spawn with them.
		serveRatio, g := "serve run / one-shot hook run, no matching hook", atMost(0.01, "1/100")
		if k == 0 {
			empty := rs[1]
			b.ratio("hook run, no matching hook / empty Go program", n, one, empty, one.Median/empty.Median, atMost(2, "2x"))
			if b.baseline != "" {
				base := rs[2]
				b.ratio("baseline hook run, no matching hook / empty Go program", n, base, empty, base.Median/empty.Median, goal{})
				b.ratio("hook run / baseline, no matching hook", n, one, base, one.Median/base.Median, goal{})
			}
		} else {
			b.ratio(fmt.Sprintf("hook run, %d matching hooks / direct spawn", k), n, one, floor, one.Median/floor.Median, goal{})
			b.ratio(fmt.Sprintf("hook run per-hook cost / direct spawn, %d hooks", k), n, one, floor, (one.Median-rs[2].Median)/floor.Median, atMost(1.05, "1.05x").when(k == 10))
			b.ratio(fmt.Sprintf("hook run per-hook cost / a fresh process's, %d hooks", k), n, one, rs[3], (one.Median-rs[2].Median)/(rs[3].Median-rs[4].Median), goal{})
			serveRatio, g = fmt.Sprintf("serve per-hook cost / direct spawn, %d hooks", k), atMost(1.1, "1.1x").when(k == 10)
		}
		if b.serveErr != nil {
			b.missing(serveName, n, goal{}, b.serveErr)
			b.missing(serveRatio, n, g, b.serveErr)
			continue
		}
		sv := rs[len(rs)-1]
		if k == 0 {
			echoed := rs[len(rs)-1]
			sv = rs[len(rs)-2]
			serve0 = sv
			b.ratio(serveRatio, n, sv, one, sv.Median/one.Median, g)
			b.ratio("serve run per request / Go JSON-RPC echo", n, sv, echoed, sv.Median/echoed.Median, atMost(2, "2x").when(n == b.small))
			continue
		}
		b.ratio(serveRatio, n, sv, floor, (sv.Median-serve0.Median)/floor.Median, g)
	}
	_, err = genMatching(home, 0)
	return err
}

// baselineHome generates the baseline's own copy of the n-plugin home
// (its caches are its own: another format would make every run of one
// binary a cold run of the other) and returns its environment.
func (b *bench) baselineHome(n int) ([]string, error) {
	if b.baseline == "" {
		return nil, nil
	}
	home, project := filepath.Join(b.tmp, fmt.Sprintf("home-%d-baseline", n)), filepath.Join(b.tmp, fmt.Sprintf("project-%d-baseline", n))
	os.MkdirAll(project, 0o755)
	if err := genHome(home, n, b.goHook); err != nil {
		return nil, err
	}
	return b.env(home, project), nil
}

// hookRunRSS reports the peak RSS of `hook run` with no matching hook,
// and beside it the baseline's, which it must not exceed.
func (b *bench) hookRunRSS(n int, env, baseEnv, args []string) error {
	peak := func(name string, env []string, bin string) (result, error) {
		var rss []float64
		for i := range max(1, min(b.o.runs, 5)) + 1 {
			mib, err := b.peakRSS(env, bin, args...)
			if err != nil {
				return result{}, err
			}
			if i > 0 { // the first fills the caches
				rss = append(rss, mib)
			}
		}
		return b.add(name, n, "MiB", rss), nil
	}
	if b.baseline == "" {
		return nil
	}
	q, err := peak("peak RSS: hook run, 0 matching hooks", env, b.quiver)
	if err != nil {
		return err
	}
	base, err := peak("peak RSS: baseline hook run, 0 matching hooks", baseEnv, b.baseline)
	if err != nil {
		return err
	}
	b.ratio("hook run peak RSS / baseline", n, q, base, q.Median/base.Median, atMost(1, "1x"))
	return nil
}

// persistent measures a persistent Python hook per event through serve
// against the same hook one-shot through hook run, and serve's memory
// after many requests, in a home of its own with only that hook.
func (b *bench) persistent() error {
	home, project := filepath.Join(b.tmp, "home-serve"), filepath.Join(b.tmp, "project-serve")
	os.MkdirAll(project, 0o755)
	env := b.env(home, project)
	const (
		serveName = "persistent Python hook via hook serve, per event"
		shotName  = "the same hook one-shot via hook run"
		ratioName = "one-shot / serve, persistent Python hook"
	)
	faster := atLeast(20, "20x")
	if err := genPersistent(home); err != nil {
		b.missing(serveName, 0, goal{}, err)
		b.missing(shotName, 0, goal{}, err)
		b.missing(ratioName, 0, faster, err)
		return nil
	}
	probes := []probe{{name: shotName, run: command(env, nil, b.quiver, "hook", "run", "before_tool_call", "--payload", b.payload)}}
	var srv *server
	if b.serveErr == nil {
		var err error
		if srv, err = startServer(b.quiver, env); err != nil {
			return err
		}
		probes = append(probes, probe{name: serveName, run: srv.runs(100, 1)})
	}
	progress("persistent Python hook, one-shot vs serve")
	rs, err := b.measure(0, b.o.runs, probes...)
	srv.close()
	if err != nil {
		return err
	}
	if b.serveErr != nil {
		b.missing(serveName, 0, goal{}, b.serveErr)
		b.missing(ratioName, 0, faster, b.serveErr)
	} else {
		b.ratio(ratioName, 0, rs[0], rs[1], rs[0].Median/rs[1].Median, faster)
	}
	return b.serveMemory(env)
}

// serveMemory compares a server's resident memory after 10,000 requests
// (each running the persistent hook) with its memory after 100 (the
// target) and after 1,000: RSS grows while the Go heap finds its size in
// the first few hundred requests, so only growth past 1,000 is a leak.
func (b *bench) serveMemory(env []string) error {
	counts := []int{100, 1000, 10000}
	var names []string
	for _, c := range counts {
		names = append(names, fmt.Sprintf("hook serve VmRSS after %d requests", c))
	}
	ratios := []struct {
		name string
		of   int // index in counts of the denominator
		goal goal
	}{
		{"serve VmRSS, 10,000 / 100 requests", 0, atMost(1.1, "1.1x")},
		{"serve VmRSS, 10,000 / 1,000 requests", 1, goal{}},
	}
	err := b.serveErr
	if err == nil && runtime.GOOS != "linux" {
		err = fmt.Errorf("VmRSS comes from /proc (Linux only)")
	}
	if err != nil {
		for _, name := range names {
			b.missing(name, 0, goal{}, err)
		}
		for _, r := range ratios {
			b.missing(r.name, 0, r.goal, err)
		}
		return nil
	}
	srv, err := startServer(b.quiver, env)
	if err != nil {
		return err
	}
	defer srv.close()
	progress("hook serve memory over %d requests", counts[len(counts)-1])
	var rs []result
	sent := 0
	for i, upTo := range counts {
		if _, err := srv.runs(upTo-sent, 1)(); err != nil {
			return err
		}
		sent = upTo
		kb, err := srv.rss()
		if err != nil {
			return err
		}
		rs = append(rs, b.add(names[i], 0, "MiB", []float64{float64(kb) / 1024}))
	}
	last := rs[len(rs)-1]
	for _, r := range ratios {
		b.ratio(r.name, 0, last, rs[r.of], last.Median/rs[r.of].Median, r.goal)
	}
	return nil
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
	i := 0
	rs, err := b.measure(0, max(1, min(b.o.runs, 5)),
		probe{name: "plugin add, 200 files, loopback git", run: command(env, nil, b.quiver, "plugin", "add", "--force", "-q", "acme/bench")},
		probe{name: "floor: git clone --depth 1, same repository", run: func() (time.Duration, error) {
			i++
			d, err := timed(nil, nil, "git", "clone", "-q", "--depth", "1", srv.RepoURL("acme/bench"), filepath.Join(b.tmp, fmt.Sprintf("clone-%d", i)))
			return d, err
		}})
	if err != nil {
		return err
	}
	b.ratio("plugin add / git clone", 0, rs[0], rs[1], rs[0].Median/rs[1].Median, atMost(2.5, "2.5x"))
	return nil
}

func (b *bench) report() error {
	if b.o.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{
			"machine": map[string]any{"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "cpu": cpuModel(), "go": runtime.Version()},
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
		if r.Error != "" {
			fmt.Fprintf(w, "%s\t%s\t-\t-\t-\t-\t%s\n", r.Name, n, strings.TrimSpace(target+"  "+r.Error))
			continue
		}
		f := func(v float64) string { return number(v) + " " + r.Unit }
		lo, hi := f(r.Min), f(r.Max)
		if r.Unit == "x" {
			lo, hi = "", ""
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Name, n, f(r.Median), lo, hi, r.Runs, target)
	}
	fmt.Fprintf(w, "\n%s/%s, %d CPUs (%s), %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), runtime.Version())
	return w.Flush()
}

// cpuModel names the processor (Linux's /proc/cpuinfo), "unknown"
// elsewhere: ratios are quoted with the machine they were taken on.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// number prints v with two decimals, or four below 1 (per-request times
// and small ratios).
func number(v float64) string {
	if math.Abs(v) < 1 {
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
