package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// GitHelper is the name of the program that does quiver's git work
// (cmd/quiver-git, package gitwork), as git runs git-remote-https for its
// HTTP transport: the quiver that agents start at every event then links
// no git library, whose packages' initialisation alone took a quarter of
// its start (docs/performance.md). Only fetching and reading git objects
// happen there; every decision about the result (staging, the lock, the
// content hash, trust) stays here.
const GitHelper = "quiver-git"

// GitProtocol is the version of the GitRequest and GitResponse shapes: a
// helper of another version (an old quiver-git on PATH) refuses the
// request rather than misreading it.
const GitProtocol = 2

// GitRequest is one piece of git work, sent to the helper as one JSON
// object on its standard input.
type GitRequest struct {
	Protocol int `json:"protocol"`
	// Op is "fetch" (URL at Ref into Dst, only the files under Sparse
	// when set; with Store, through the machine's store, only Sub's
	// files, and into the store alone when Dst is empty), "latest" (what Ref points to at URL), "digest" (the
	// files of the commit checked out in Dir, as HashDir lines; with
	// Store, those of commit Ref's folder Sub there) or
	// "tracked" (which of Paths the repository around Dir tracks) or
	// "rewrite" (URL as it is fetched, after GitConfig's insteadOf).
	Op     string `json:"op"`
	URL    string `json:"url,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Dst    string `json:"dst,omitempty"`
	Sparse string `json:"sparse,omitempty"`
	// GitConfig are git configuration files whose url.insteadOf rules
	// rewrite URL (Fetcher.GitConfig).
	GitConfig []string `json:"git_config,omitempty"`
	// Token and Base are the Credentials of the fetch.
	Token string `json:"token,omitempty"`
	Base  string `json:"base,omitempty"`
	// Progress asks for go-git's progress lines on standard error.
	Progress bool     `json:"progress,omitempty"`
	Dir      string   `json:"dir,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	// Store is the store repository of URL's source (Store.RepoDir),
	// Source that source as the store records it (no credential), and
	// Sub the folder of the commit to write out ("" for all of it).
	Store  string `json:"store,omitempty"`
	Source string `json:"source,omitempty"`
	Sub    string `json:"sub,omitempty"`
}

// GitResponse is the helper's answer, one JSON object on its standard
// output.
type GitResponse struct {
	// URL is a "rewrite"'s answer.
	URL     string            `json:"url,omitempty"`
	Commit  string            `json:"commit,omitempty"`
	Kind    RefKind           `json:"kind,omitempty"`
	Files   map[string]string `json:"files,omitempty"`
	Tracked []string          `json:"tracked,omitempty"`
	// FromStore says a fetch was served by the machine's store alone,
	// with no request to the host.
	FromStore bool `json:"from_store,omitempty"`
	// NotAFolder, after a sparse fetch, says what the sparse path is in
	// the commit when it is there but not a folder.
	NotAFolder *GitError `json:"not_a_folder,omitempty"`
	// ConfigError says why GitConfig could not be used: the work was
	// done without its rewrites.
	ConfigError string    `json:"config_error,omitempty"`
	Error       *GitError `json:"error,omitempty"`
}

// GitError is an error sent through the pipe: its whole message, and the
// names of the errors of this package it wraps (GitErrorNames), so that
// errors.Is holds on this side of the pipe as it did on that one.
type GitError struct {
	Message string   `json:"message"`
	Is      []string `json:"is,omitempty"`
}

// err is e as an error of this side, nil for nil.
func (e *GitError) err() error {
	if e == nil {
		return nil
	}
	he := &helperError{msg: e.Message}
	for _, name := range e.Is {
		if known, ok := gitError(name); ok {
			he.is = append(he.is, known)
		}
	}
	return he
}

// gitError is the error a caller may tell apart after git work, by the
// name it travels under (a switch: no table is built at start-up).
func gitError(name string) (error, bool) {
	switch name {
	case "repo-not-found":
		return ErrRepoNotFound, true
	case "auth-required":
		return ErrAuthRequired, true
	case "auth-failed":
		return ErrAuthFailed, true
	case "ref-not-found":
		return ErrRefNotFound, true
	case "empty-repo":
		return ErrEmptyRepo, true
	case "no-such-folder":
		return ErrNoSuchFolder, true
	case "unsafe-tree":
		return ErrUnsafeTree, true
	case "not-a-commit":
		return ErrNotACommit, true
	case "invalid-spec":
		return ErrInvalidSpec, true
	case "unsafe-symlink":
		return ErrUnsafeSymlink, true
	case "unreachable":
		return ErrUnreachable, true
	case "context-cancel":
		return context.Canceled, true
	case "context-timeout":
		return context.DeadlineExceeded, true
	}
	return nil, false
}

// gitErrorNames are the names gitError knows, sorted.
var gitErrorNames = [...]string{"auth-failed", "auth-required", "context-cancel", "context-timeout", "empty-repo", "invalid-spec", "no-such-folder", "not-a-commit", "ref-not-found", "repo-not-found", "unreachable", "unsafe-symlink", "unsafe-tree"}

// GitErrorNames names the errors of gitError that err wraps, sorted.
func GitErrorNames(err error) []string {
	var out []string
	for _, name := range gitErrorNames {
		if e, _ := gitError(name); errors.Is(err, e) {
			out = append(out, name)
		}
	}
	return out
}

// helperError is an error that came through the pipe: its message, and
// the errors it wrapped on the other side.
type helperError struct {
	msg string
	is  []error
}

func (e *helperError) Error() string   { return e.msg }
func (e *helperError) Unwrap() []error { return e.is }

// gitHelperPath finds the helper: beside quiver's own executable first
// (go install puts both in one folder; a packager ships them together),
// then on PATH.
func gitHelperPath() (string, error) {
	name := GitHelper
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(GitHelper)
	if err != nil {
		where := "on PATH"
		if self != "" {
			where = "beside " + self + " nor on PATH"
		}
		return "", fmt.Errorf("quiver's git helper %s is not %s; install it with quiver (go install ./cmd/quiver ./cmd/quiver-git)", GitHelper, where)
	}
	return p, nil
}

// runGit does req in the helper. progress, when not nil, receives the
// helper's progress lines; a cancelled ctx kills the helper and waits for
// it, so nothing writes to req.Dst after runGit returns.
func runGit(ctx context.Context, req GitRequest, progress io.Writer) (GitResponse, error) {
	path, err := gitHelperPath()
	if err != nil {
		return GitResponse{}, err
	}
	req.Protocol = GitProtocol
	req.Progress = progress != nil
	in, err := json.Marshal(req)
	if err != nil {
		return GitResponse{}, err
	}
	cmd := exec.CommandContext(ctx, path)
	// The helper reads one request, then watches its standard input: when
	// quiver ends, however it ends, the pipe closes and the helper stops
	// writing into quiver's staging folder (dieWithParent does the same
	// at once where the system allows).
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return GitResponse{}, err
	}
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(progress, stderr)
	}
	dieWithParent(cmd)
	err = startAndWait(cmd, stdin, append(in, '\n'))
	if ctx.Err() != nil {
		return GitResponse{}, fmt.Errorf("%s %s: %w", req.Op, Redact(req.URL+req.Dir), context.Cause(ctx))
	}
	var resp GitResponse
	if jerr := json.Unmarshal(stdout.Bytes(), &resp); jerr != nil {
		if err == nil {
			err = jerr
		}
		return GitResponse{}, fmt.Errorf("%s: %v%s", path, err, stderr.tail())
	}
	return resp, resp.Error.err()
}

// startAndWait starts cmd, writes in to its standard input and waits for
// it, on one OS thread: the death signal that dieWithParent asks for is
// sent when the thread that started the helper ends, not the process, so
// that thread is held until the helper is done.
func startAndWait(cmd *exec.Cmd, stdin io.Writer, in []byte) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return err
	}
	stdin.Write(in) // a helper that did not read it ended: Wait says how
	return cmd.Wait()
}

// tailBuffer keeps the last max bytes written to it: what a helper that
// failed without answering said last.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) tail() string {
	s := string(bytes.TrimSpace(t.b))
	if s == "" {
		return ""
	}
	return ": " + s
}

// CheckGitHelper asks the git helper a question that needs no network
// (a URL's rewrite under no configuration): an error says why it cannot
// answer (missing, of another protocol version, broken).
func CheckGitHelper(ctx context.Context) error {
	_, err := runGit(ctx, GitRequest{Op: "rewrite", URL: "https://example.com/org/repo.git"}, nil)
	return err
}
