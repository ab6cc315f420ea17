// Package testkit holds what tests in several packages share and no
// production code uses: a corpus that holds a byte loop to the regexp it
// replaced, the files of a bare git snapshot's HEAD, and FIFOs that hold
// a hook back until the test lets it go.
package testkit

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
)

// boundary are the characters names trip over: the first and last of each
// class, separators, whitespace, a multi-byte letter, invalid UTF-8 and
// the ASCII neighbours of the classes' ranges.
var boundary = []string{"a", "Z", "0", "9", "_", "-", ".", "/", " ", "\n", "$", "é", "\xff", "@", "`", "{", "[", ":"}

// AgreesWithRegexp checks that accepts, a loop that replaced a regexp
// (slow to compile at start-up), says what pattern says: on every string
// of up to three boundary characters, and on 2,000 random strings of
// maxLen-10 to maxLen+10 bytes, mostly name characters with a boundary
// one now and then. The seed is logged, so a failure can be replayed.
func AgreesWithRegexp(t testing.TB, pattern string, maxLen int, accepts func(string) bool) {
	t.Helper()
	re := regexp.MustCompile(pattern)
	corpus, prev := []string{""}, []string{""}
	for range 3 {
		var next []string
		for _, p := range prev {
			for _, b := range boundary {
				next = append(next, p+b)
			}
		}
		corpus, prev = append(corpus, next...), next
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for range 2000 {
		b := []byte{"aZ_9."[r.IntN(5)]}
		for n := max(1, maxLen-10+r.IntN(21)); len(b) < n; {
			if r.IntN(200) == 0 {
				b = append(b, boundary[r.IntN(len(boundary))]...)
			} else {
				b = append(b, "az09_-."[r.IntN(7)])
			}
		}
		corpus = append(corpus, string(b))
	}
	for _, s := range corpus {
		if got, want := accepts(s), re.MatchString(s); got != want {
			t.Fatalf("%q: the loop says %v, %s says %v (seed %d)", s, got, pattern, want, seed)
		}
	}
}

// ExportHEAD writes the files of a bare repository's HEAD into a fresh
// folder, as git archive gives them, and returns it.
func ExportHEAD(t testing.TB, bare string) string {
	t.Helper()
	dir := t.TempDir()
	archive := exec.Command("git", "--git-dir", bare, "archive", "HEAD")
	untar := exec.Command("tar", "-x", "-C", dir)
	var err error
	if untar.Stdin, err = archive.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v", bare, err)
	}
	if err := untar.Wait(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// FIFO makes the named pipe dir/name: a hook that reads a line from it
// waits there until the test lets it go (LetGo), so that a test waits on
// an event, not for a time.
func FIFO(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// LetGo writes a line to fifo, ending the wait of the hook that reads it
// (it blocks until one opens it). Safe from any goroutine: a failure is
// reported without stopping the test.
func LetGo(t testing.TB, fifo string) {
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Error(err)
		return
	}
	f.WriteString("go\n")
	f.Close()
}
