// Package gitserver serves git repositories over smart HTTP on 127.0.0.1 for
// tests: the real `git http-backend` behind net/http/cgi, so quiver's
// installs talk to a real git server and never to the network. A test's
// repositories are written into the served bare repositories directly
// (see Commit), from folders of test files.
package gitserver

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a running loopback git server.
type Server struct {
	// URL is the base URL: repositories live at URL/org/repo.git.
	URL string
	// Root holds the bare repositories, org/repo.git.
	Root string

	srv       *httptest.Server
	closeOnce sync.Once
	auth      atomic.Pointer[[2]string] // required user and password, if any
	mu        sync.Mutex                // serializes writes to the repositories
	head      map[string]string         // repository -> the last commit made in it

	// Requests counts HTTP requests; AuthSeen those that carried an
	// Authorization header.
	Requests, AuthSeen atomic.Int64
}

// Options configures a server.
type Options struct {
	// User and Password, when set, are required as HTTP basic auth: no
	// credentials get 401, wrong ones 403.
	User, Password string
	// NoSHAWant makes the server refuse fetches of unadvertised commits,
	// as many servers do, so clients must fall back to a full fetch.
	NoSHAWant bool
	// Delay holds every answer back this long, as a distant host's round
	// trip would (for benchmarks: quiverbench's 80 ms host).
	Delay time.Duration
}

// httpBackend finds git-http-backend once per test binary.
var httpBackend = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("gitserver: git is needed: %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return "", fmt.Errorf("gitserver: %w", err)
	}
	return backend, nil
})

// Start serves repositories kept under dir (created if needed).
func Start(dir string, o Options) (*Server, error) {
	backend, err := httpBackend()
	if err != nil {
		return nil, err
	}
	s := &Server{Root: filepath.Join(dir, "repos"), head: map[string]string{}}
	s.SetAuth(o.User, o.Password)
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		return nil, err
	}
	env := []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + dir}
	if !o.NoSHAWant {
		env = append(env,
			"GIT_CONFIG_COUNT=2",
			"GIT_CONFIG_KEY_0=uploadpack.allowReachableSHA1InWant", "GIT_CONFIG_VALUE_0=true",
			"GIT_CONFIG_KEY_1=uploadpack.allowAnySHA1InWant", "GIT_CONFIG_VALUE_1=true")
	}
	// A killed client makes the CGI copy fail; that is expected in tests.
	h := &cgi.Handler{Path: backend, Env: env, Stderr: io.Discard, Logger: log.New(io.Discard, "", 0)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if o.Delay > 0 {
			t := time.NewTimer(o.Delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if r.Header.Get("Authorization") != "" {
			s.AuthSeen.Add(1)
		}
		if want := s.auth.Load(); want != nil {
			u, p, ok := r.BasicAuth()
			if !ok {
				w.Header().Set("WWW-Authenticate", `Basic realm="quiver-test"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
			if subtle.ConstantTimeCompare([]byte(u+":"+p), []byte(want[0]+":"+want[1])) != 1 {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	s.URL = s.srv.URL
	return s, nil
}

// New starts a server for a test and stops it when the test ends.
func New(t testing.TB, o Options) *Server {
	t.Helper()
	s, err := Start(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// SetAuth makes the server require HTTP basic auth with user and password
// (no credentials get 401, wrong ones 403); an empty user turns it off.
func (s *Server) SetAuth(user, password string) {
	if user == "" {
		s.auth.Store(nil)
		return
	}
	s.auth.Store(&[2]string{user, password})
}

// Close stops the server; later requests are refused. It may be called
// more than once.
func (s *Server) Close() { s.closeOnce.Do(s.srv.Close) }

// Remove deletes repository name from the server.
func (s *Server) Remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.head, name)
	return os.RemoveAll(s.Bare(name))
}

// RepoURL is the clone URL of org/repo.
func (s *Server) RepoURL(name string) string { return s.URL + "/" + name + ".git" }

// Commit makes the files of src (modes and symlinks kept, empty folders
// and .git left out, as git add would) the content of a new commit on
// repository name's branch (main unless given), creating the repository
// and the branch when needed, and returns the commit. Like a work tree
// that commits and force-pushes, the new commit's parent is the last
// commit made in the repository, whichever branch it was on (none for the
// first), and the branch is moved to it whatever it pointed at.
//
// The objects and the ref are written straight into the bare repository,
// as git lays them out, without a git process: a fixture costs a few file
// writes instead of a dozen git commands (init, add, commit, push and the
// receive-pack, unpack-objects and gc behind it). A commit of over 100 new
// objects is packed by one git repack, as receive-pack would keep it.
func (s *Server) Commit(name, branch, src, msg string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bare, err := s.ensure(name)
	if err != nil {
		return "", err
	}
	if branch == "" {
		branch = "main"
	}
	o := &objects{bare: bare}
	tree, err := o.tree(src)
	if err != nil {
		return "", fmt.Errorf("gitserver: commit %s: %w", src, err)
	}
	if tree == "" {
		if tree, err = o.write("tree", nil); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", tree)
	if parent := s.head[name]; parent != "" {
		fmt.Fprintf(&b, "parent %s\n", parent)
	}
	sig := signature()
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s\n", sig, sig, msg)
	commit, err := o.write("commit", []byte(b.String()))
	if err != nil {
		return "", err
	}
	if err := writeRef(bare, "refs/heads/"+branch, commit); err != nil {
		return "", err
	}
	// A push of more objects than transfer.unpackLimit (100) is kept as
	// a pack by receive-pack; so is a big commit here (git repack packs
	// what the refs reach), or git would compress every loose object
	// again for each fetch of it.
	if o.added > 100 {
		if _, err := s.git(bare, "repack", "-d", "-q"); err != nil {
			return "", err
		}
	}
	s.head[name] = commit
	return commit, nil
}

// Tag tags the last commit made in repository name (with an annotated tag
// object, message "release TAG", when annotated is set), replacing any
// tag of that name.
func (s *Server) Tag(name, tag string, annotated bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	target := s.head[name]
	if target == "" {
		return fmt.Errorf("gitserver: tag %s: %s has no commit", tag, name)
	}
	bare := s.Bare(name)
	if annotated {
		body := fmt.Sprintf("object %s\ntype commit\ntag %s\ntagger %s\n\nrelease %s\n", target, tag, signature(), tag)
		var err error
		if target, err = (&objects{bare: bare}).write("tag", []byte(body)); err != nil {
			return err
		}
	}
	return writeRef(bare, "refs/tags/"+tag, target)
}

// TagObject points tag at any object the revision names (rev
// "main^{tree}" tags a tree, as a hostile repository can).
func (s *Server) TagObject(name, tag, rev string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, err := s.revParse(name, rev)
	if err != nil {
		return err
	}
	return writeRef(s.Bare(name), "refs/tags/"+tag, sha)
}

// RevParse resolves a revision to a commit. HEAD is the last commit made
// in the repository, as in the work tree that would have made it.
func (s *Server) RevParse(name, rev string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revParse(name, rev+"^{commit}")
}

func (s *Server) revParse(name, rev string) (string, error) {
	if rest, ok := strings.CutPrefix(rev, "HEAD"); ok && (rest == "" || strings.ContainsAny(rest[:1], "~^:@")) {
		if s.head[name] == "" {
			return "", fmt.Errorf("gitserver: %s has no commit", name)
		}
		rev = s.head[name] + rest
	}
	return s.git(s.Bare(name), "rev-parse", rev)
}

// DeleteRef deletes a branch or tag on the server.
func (s *Server) DeleteRef(name, ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.git(s.Bare(name), "update-ref", "-d", ref)
	return err
}

// Bare is the folder of repository name's bare repository, for tests that
// write into it with git's own plumbing.
func (s *Server) Bare(name string) string { return filepath.Join(s.Root, name+".git") }

// ensure creates repository name (HEAD on main) unless it exists and
// returns its folder. It is laid out in a temporary folder and renamed
// into place, so the server never serves half a repository.
func (s *Server) ensure(name string) (string, error) {
	bare := s.Bare(name)
	if _, err := os.Stat(bare); err == nil {
		return bare, nil
	}
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(bare), ".init-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return "", err
		}
	}
	files := map[string]string{
		"HEAD":   "ref: refs/heads/main\n",
		"config": "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n",
	}
	for f, body := range files {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, bare); err != nil {
		return "", err
	}
	delete(s.head, name)
	return bare, nil
}

// signature is the author, committer and tagger of every object the
// server writes, at the current time.
func signature() string {
	return fmt.Sprintf("quiver test <test@quiver.invalid> %d +0000", time.Now().Unix())
}

// objects writes loose objects into one bare repository.
type objects struct {
	bare  string
	added int // objects that were not there yet
}

// write stores a loose object of the given kind and returns its SHA-1.
func (o *objects) write(kind string, data []byte) (string, error) {
	header := fmt.Sprintf("%s %d\x00", kind, len(data))
	h := sha1.New()
	h.Write([]byte(header))
	h.Write(data)
	sum := hex.EncodeToString(h.Sum(nil))
	path := filepath.Join(o.bare, "objects", sum[:2], sum[2:])
	if _, err := os.Stat(path); err == nil {
		return sum, nil
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	zw.Write([]byte(header))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	o.added++
	return sum, writeAtomic(path, z.Bytes(), 0o444)
}

// writeRef points ref (refs/heads/main, refs/tags/v1) at sha.
func writeRef(bare, ref, sha string) error {
	path := filepath.Join(bare, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, []byte(sha+"\n"), 0o644)
}

// writeAtomic writes a file through a temporary file and a rename, so a
// git process serving a fetch meanwhile sees the old file or the new one.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), mode)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// tree stores the tree of the files under dir, as git add -A and
// git commit would record them, and returns its SHA-1; "" when dir holds
// no file at any depth (git records no empty folder). A file is 100755
// when its owner may run it, else 100644; a symlink is its target.
// Anything else (a FIFO, a socket) and .git folders are left out.
func (o *objects) tree(dir string) (string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	type entry struct{ mode, name, sha, key string }
	var entries []entry
	for _, de := range des {
		if de.Name() == ".git" {
			continue
		}
		p := filepath.Join(dir, de.Name())
		info, err := de.Info()
		if err != nil {
			return "", err
		}
		e := entry{name: de.Name(), key: de.Name()}
		switch {
		case info.IsDir():
			if e.sha, err = o.tree(p); err != nil {
				return "", err
			}
			if e.sha == "" {
				continue
			}
			e.mode, e.key = "40000", e.name+"/"
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return "", err
			}
			if e.sha, err = o.write("blob", []byte(target)); err != nil {
				return "", err
			}
			e.mode = "120000"
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return "", err
			}
			if e.sha, err = o.write("blob", data); err != nil {
				return "", err
			}
			e.mode = "100644"
			if info.Mode()&0o100 != 0 {
				e.mode = "100755"
			}
		default:
			continue
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return "", nil
	}
	// git sorts a tree by name, a folder's name as if it ended in "/".
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	var buf bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e.sha)
		if err != nil {
			return "", err
		}
		buf.WriteString(e.mode + " " + e.name + "\x00")
		buf.Write(raw)
	}
	return o.write("tree", buf.Bytes())
}

func (s *Server) git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=quiver test", "GIT_AUTHOR_EMAIL=test@quiver.invalid",
		"GIT_COMMITTER_NAME=quiver test", "GIT_COMMITTER_EMAIL=test@quiver.invalid")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}
