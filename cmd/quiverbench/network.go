package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
)

// hostDelay is the round trip of the distant host the network rows talk
// to: every answer of the loopback git server is held back this long.
const hostDelay = 80 * time.Millisecond

// netPlugins is how many plugins, each in its own repository, the
// network rows install.
const netPlugins = 10

// network measures what a team waits for: plugin install of a lock of 1
// and of 10 plugins over a host that answers each request 80 ms late
// (each run in a fresh home and project, so nothing is kept between
// runs), plugin outdated of the same, install in a second project of a
// home that installed the lock before (its store warm), and the same
// with the host gone. This quiver and the baseline run in the same
// rounds.
func (b *bench) network() error {
	srv, err := gitserver.Start(filepath.Join(b.tmp, "git-delayed"), gitserver.Options{Delay: hostDelay})
	if err != nil {
		return err
	}
	defer srv.Close()
	// The offline rows' host: up while their homes fill, then closed.
	gone, err := gitserver.Start(filepath.Join(b.tmp, "git-gone"), gitserver.Options{Delay: hostDelay})
	if err != nil {
		return err
	}
	defer gone.Close()
	var names []string
	for i := range netPlugins {
		src := filepath.Join(b.tmp, fmt.Sprintf("net-src-%d", i))
		if err := genHome(src, 1, ""); err != nil {
			return err
		}
		dir := filepath.Join(src, "plugins", "org0@plugin0")
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(fmt.Sprintf("# net%d\n", i)), 0o644); err != nil {
			return err
		}
		name := fmt.Sprintf("acme/net%d", i)
		for _, s := range []*gitserver.Server{srv, gone} {
			if _, err := s.Commit(name, "main", dir, "plugin"); err != nil {
				return err
			}
		}
		names = append(names, name)
	}
	type quiver struct{ label, bin string }
	bins := []quiver{{"", b.quiver}}
	if b.baseline != "" {
		bins = append(bins, quiver{"baseline ", b.baseline})
	}
	runs := max(1, min(b.o.runs, 5))
	seq := 0
	fresh := func() (home, project string) {
		seq++
		dir := filepath.Join(b.tmp, fmt.Sprintf("net-run-%d", seq))
		os.MkdirAll(filepath.Join(dir, "project"), 0o755)
		return filepath.Join(dir, "home"), filepath.Join(dir, "project")
	}
	var probes []probe
	var down []probe
	for _, q := range bins {
		// The locks, written once by plugin add in a home of their own.
		locks := map[int]string{}
		for _, n := range []int{1, netPlugins, -netPlugins} {
			home, project := fresh()
			base := srv.URL
			if n < 0 {
				base = gone.URL // the offline rows' lock
			}
			env := append(b.env(home, project), "QUIVER_GIT_BASE="+base)
			if _, err := timed(env, nil, q.bin, append([]string{"plugin", "add", "-q"}, names[:abs(n)]...)...); err != nil {
				return err
			}
			locks[n] = filepath.Join(project, ".quiver", "quiver.lock")
		}
		install := func(n int, home func() string, base string) func() (time.Duration, error) {
			return func() (time.Duration, error) {
				h := home()
				_, project := fresh()
				if err := writeLock(locks[n], project); err != nil {
					return 0, err
				}
				return timed(append(b.env(h, project), "QUIVER_GIT_BASE="+base), nil, q.bin, "plugin", "install", "-q")
			}
		}
		newHome := func() string { home, _ := fresh(); return home }
		for _, n := range []int{1, netPlugins} {
			probes = append(probes, probe{name: fmt.Sprintf("%splugin install, %d plugins, 80 ms host, new home", q.label, n), fresh: true, run: install(n, newHome, srv.URL)})
		}
		for _, n := range []int{1, netPlugins} {
			home, project := fresh()
			if err := writeLock(locks[n], project); err != nil {
				return err
			}
			env := append(b.env(home, project), "QUIVER_GIT_BASE="+srv.URL)
			if _, err := timed(env, nil, q.bin, "plugin", "install", "-q"); err != nil {
				return err
			}
			probes = append(probes, probe{name: fmt.Sprintf("%splugin outdated, %d plugins, 80 ms host", q.label, n), run: command(env, nil, q.bin, "plugin", "outdated")})
		}
		// A home that installed the lock once, from a host that stays up
		// and from one that goes away.
		warm, project := fresh()
		if err := writeLock(locks[netPlugins], project); err != nil {
			return err
		}
		if _, err := timed(append(b.env(warm, project), "QUIVER_GIT_BASE="+srv.URL), nil, q.bin, "plugin", "install", "-q"); err != nil {
			return err
		}
		probes = append(probes, probe{name: fmt.Sprintf("%splugin install, %d plugins, 80 ms host, second project", q.label, netPlugins), fresh: true, run: install(netPlugins, func() string { return warm }, srv.URL)})
		cold, project := fresh()
		if err := writeLock(locks[-netPlugins], project); err != nil {
			return err
		}
		if _, err := timed(append(b.env(cold, project), "QUIVER_GIT_BASE="+gone.URL), nil, q.bin, "plugin", "install", "-q"); err != nil {
			return err
		}
		down = append(down, probe{name: fmt.Sprintf("%splugin install, %d plugins, host down, second project", q.label, netPlugins), fresh: true, run: install(-netPlugins, func() string { return cold }, gone.URL)})
	}
	gone.Close()
	// A quiver without a store fails offline: that is its row.
	offline := make([]error, len(down))
	for i, p := range down {
		if _, offline[i] = p.run(); offline[i] == nil {
			probes = append(probes, p)
		}
	}
	progress("plugin install and outdated of 1 and %d plugins over an %v host", netPlugins, hostDelay)
	rs, err := b.measure(0, runs, probes...)
	if err != nil {
		return err
	}
	row := map[string]result{}
	for _, r := range rs {
		row[r.Name] = r
	}
	for i, q := range bins {
		one, ten := row[q.label+"plugin install, 1 plugins, 80 ms host, new home"], row[fmt.Sprintf("%splugin install, %d plugins, 80 ms host, new home", q.label, netPlugins)]
		b.ratio(fmt.Sprintf("%splugin install, %d / 1 plugins", q.label, netPlugins), netPlugins, ten, one, ten.Median/one.Median, atMost(3, "3x").when(q.label == ""))
		o1, o10 := row[q.label+"plugin outdated, 1 plugins, 80 ms host"], row[fmt.Sprintf("%splugin outdated, %d plugins, 80 ms host", q.label, netPlugins)]
		b.ratio(fmt.Sprintf("%splugin outdated, %d / 1 plugins", q.label, netPlugins), netPlugins, o10, o1, o10.Median/o1.Median, atMost(3, "3x").when(q.label == ""))
		second := row[fmt.Sprintf("%splugin install, %d plugins, 80 ms host, second project", q.label, netPlugins)]
		b.ratio(fmt.Sprintf("%splugin install, second project / first", q.label), netPlugins, second, ten, second.Median/ten.Median, goal{})
		name := fmt.Sprintf("%splugin install, %d plugins, host down, second project", q.label, netPlugins)
		if offline[i] != nil {
			b.missing(name, netPlugins, goal{}, fmt.Errorf("fails: %s", firstLine(offline[i].Error())))
			continue
		}
		b.ratio(fmt.Sprintf("%splugin install, host down / up, second project", q.label), netPlugins, row[name], second, row[name].Median/second.Median, goal{})
	}
	return nil
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// writeLock puts the lock file at lock into a new project's scope.
func writeLock(lock, project string) error {
	dst := filepath.Join(project, ".quiver", "quiver.lock")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return copyFile(lock, dst, 0o644)
}

func abs(n int) int { return max(n, -n) }
