// Package gitserver serves git repositories over smart HTTP on 127.0.0.1 for
// tests: the real `git http-backend` behind net/http/cgi, so quiver's
// installs talk to a real git server and never to the network. Repositories
// are built with the git command line from folders of test files.
package gitserver

import (
	"bytes"
	"crypto/subtle"
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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Server is a running loopback git server.
type Server struct {
	// URL is the base URL: repositories live at URL/org/repo.git.
	URL string
	// Root holds the bare repositories, Work their work trees.
	Root, Work string

	srv       *httptest.Server
	closeOnce sync.Once
	auth      atomic.Pointer[[2]string] // required user and password, if any
	mu        sync.Mutex                // serializes git commands per server

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
}

// Start serves repositories kept under dir (created if needed).
func Start(dir string, o Options) (*Server, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("gitserver: git is needed: %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return nil, fmt.Errorf("gitserver: %w", err)
	}
	s := &Server{Root: filepath.Join(dir, "repos"), Work: filepath.Join(dir, "work")}
	s.SetAuth(o.User, o.Password)
	for _, d := range []string{s.Root, s.Work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
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
	return os.RemoveAll(filepath.Join(s.Root, name+".git"))
}

// RepoURL is the clone URL of org/repo.
func (s *Server) RepoURL(name string) string { return s.URL + "/" + name + ".git" }

// Commit replaces the content of repository name's branch with the files
// of src (modes and symlinks kept), commits and pushes it, creating the
// repository (default branch main) and the branch when needed. It returns
// the new commit.
func (s *Server) Commit(name, branch, src, msg string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensure(name); err != nil {
		return "", err
	}
	work := filepath.Join(s.Work, name)
	if branch == "" {
		branch = "main"
	}
	if _, err := s.git(work, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
		if _, err := s.git(work, "checkout", "-q", "-B", branch); err != nil {
			return "", err
		}
	} else if _, err := s.git(work, "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return "", err
	}
	if err := clearTree(work); err != nil {
		return "", err
	}
	if err := copyTree(src, work); err != nil {
		return "", err
	}
	if _, err := s.git(work, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := s.git(work, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	if _, err := s.git(work, "push", "-q", "-f", "origin", branch); err != nil {
		return "", err
	}
	return s.git(work, "rev-parse", "HEAD")
}

// Tag tags the current commit of the work tree (annotated when annotated
// is set) and pushes the tag.
func (s *Server) Tag(name, tag string, annotated bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	work := filepath.Join(s.Work, name)
	args := []string{"tag", "-f", tag}
	if annotated {
		args = []string{"tag", "-f", "-a", "-m", "release " + tag, tag}
	}
	if _, err := s.git(work, args...); err != nil {
		return err
	}
	_, err := s.git(work, "push", "-q", "-f", "origin", "refs/tags/"+tag)
	return err
}

// TagObject points tag at any object the revision names in the work tree
// (rev "main^{tree}" tags a tree, as a hostile repository can) and pushes
// it.
func (s *Server) TagObject(name, tag, rev string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	work := filepath.Join(s.Work, name)
	if _, err := s.git(work, "tag", "-f", tag, rev); err != nil {
		return err
	}
	_, err := s.git(work, "push", "-q", "-f", "origin", "refs/tags/"+tag)
	return err
}

// RevParse resolves a revision in the repository's work tree.
func (s *Server) RevParse(name, rev string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.git(filepath.Join(s.Work, name), "rev-parse", rev+"^{commit}")
}

// DeleteRef deletes a branch or tag on the server.
func (s *Server) DeleteRef(name, ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.git(filepath.Join(s.Work, name), "push", "-q", "origin", ":"+ref)
	return err
}

func (s *Server) ensure(name string) error {
	bare := filepath.Join(s.Root, name+".git")
	if _, err := os.Stat(bare); err == nil {
		return nil
	}
	work := filepath.Join(s.Work, name)
	for _, args := range [][]string{
		{"init", "-q", "--bare", "-b", "main", bare},
		{"-C", bare, "config", "receive.denyDeleteCurrent", "ignore"},
		{"init", "-q", "-b", "main", work},
		{"-C", work, "remote", "add", "origin", bare},
	} {
		if _, err := s.git("", args...); err != nil {
			return err
		}
	}
	return nil
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

// clearTree empties a work tree except its .git.
func clearTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		to := filepath.Join(dst, rel)
		info, err := e.Info()
		if err != nil {
			return err
		}
		switch {
		case info.IsDir():
			return os.MkdirAll(to, 0o755)
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, info.Mode().Perm())
		}
	})
}
