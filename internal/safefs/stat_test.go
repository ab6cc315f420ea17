package safefs

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStatIsOsStat: what Stat and Lstat keep of a file is what os.Stat
// and os.Lstat say of it, for every kind of file a scan can meet, so
// caches keyed on either agree.
func TestStatIsOsStat(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode fs.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := []string{
		write("hook", 0o755),
		write("plain", 0o644),
		write("setuid", 0o755|fs.ModeSetuid),
		write("setgid", 0o755|fs.ModeSetgid),
		dir,
		"/dev/null",
	}
	sticky := filepath.Join(dir, "sticky")
	if err := os.Mkdir(sticky, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("hook", link); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, sticky, link)
	if fifo := filepath.Join(dir, "fifo"); syscall.Mkfifo(fifo, 0o640) == nil {
		paths = append(paths, fifo)
	}
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		defer l.Close()
		paths = append(paths, filepath.Join(dir, "sock"))
	}
	// A modification time with nanoseconds, and one before 1970.
	old := write("old", 0o700)
	if err := os.Chtimes(old, time.Unix(-86400, 123), time.Unix(-86400, 123)); err != nil {
		t.Fatal(err)
	}
	// And one past 2262, beyond a nanosecond count (os.Chtimes cannot
	// set it).
	late := write("late", 0o700)
	ts := syscall.Timespec{Sec: time.Date(2300, 1, 1, 0, 0, 0, 5, time.UTC).Unix(), Nsec: 5}
	if err := syscall.UtimesNano(late, []syscall.Timespec{ts, ts}); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, old, late)
	for _, f := range []struct {
		name string
		ours func(string, *Info) error
		os   func(string) (fs.FileInfo, error)
	}{{"stat", Stat, os.Stat}, {"lstat", Lstat, os.Lstat}} {
		for _, p := range paths {
			want, err := f.os(p)
			if err != nil {
				t.Fatal(err)
			}
			var got Info
			if err := f.ours(p, &got); err != nil {
				t.Fatalf("%s(%s): %v", f.name, p, err)
			}
			if got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() || !got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() {
				t.Errorf("%s %s: ours = %s %d %v %v %v, os's = %s %d %v %v %v", f.name, p, got.Name(), got.Size(), got.Mode(), got.ModTime(), got.IsDir(),
					want.Name(), want.Size(), want.Mode(), want.ModTime(), want.IsDir())
			}
			if IdentOf(&got) != IdentOf(want) {
				t.Errorf("%s %s: Ident %+v, os's %+v", f.name, p, IdentOf(&got), IdentOf(want))
			}
			if id, err := Identify(p); f.name == "stat" && (err != nil || id != IdentOf(want)) {
				t.Errorf("Identify(%s) = %+v, %v; os.Stat's %+v", p, id, err, IdentOf(want))
			}
		}
		var info Info
		err := f.ours(filepath.Join(dir, "missing"), &info)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != f.name || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s of a missing file: %#v", f.name, err)
		}
	}
}

// BenchmarkStat: a scan's stat of each hook, without os.Stat's record.
func BenchmarkStat(b *testing.B) {
	p := filepath.Join(b.TempDir(), "hook")
	if err := os.WriteFile(p, nil, 0o755); err != nil {
		b.Fatal(err)
	}
	b.Run("os.Stat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := os.Stat(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("safefs.Stat", func(b *testing.B) {
		b.ReportAllocs()
		var info Info
		for b.Loop() {
			if err := Stat(p, &info); err != nil {
				b.Fatal(err)
			}
		}
	})
}
