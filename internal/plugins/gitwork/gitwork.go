// Package gitwork is quiver's git work done with go-git: fetching a
// plugin repository at a ref (checking its tree before anything is
// written), asking a remote what a ref points to, and reading the commit
// checked out in a plugin or the index of a project. It runs in the
// helper program quiver-git (cmd/quiver-git), which package plugins starts
// for each piece of git work (plugins.GitRequest), so that the quiver
// agents start at every event links no git library. What to do with the
// result (staging, the lock, the content hash) is decided in plugins.
package gitwork

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Main serves one plugins.GitRequest read from stdin and writes its
// plugins.GitResponse to stdout; progress lines, when asked for, go to
// stderr. It returns the exit code: 0 whenever it answered, the error in
// the answer. When stdin closes before the work is done (quiver ended),
// gone is called (the helper's main exits there, leaving the rest
// undone: nobody waits for it).
func Main(stdin io.Reader, stdout, stderr io.Writer, gone func()) int {
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		fmt.Fprintf(stderr, "%s: no request on standard input: %v\n", plugins.GitHelper, err)
		return 2
	}
	go func() {
		io.Copy(io.Discard, in)
		gone()
	}()
	var req plugins.GitRequest
	var resp plugins.GitResponse
	if err := json.Unmarshal(line, &req); err != nil {
		resp = answer(resp, fmt.Errorf("%s: a request that does not parse: %v", plugins.GitHelper, err))
	} else {
		resp = Do(context.Background(), req, stderr)
	}
	if err := json.NewEncoder(stdout).Encode(resp); err != nil {
		return 1
	}
	return 0
}

// Do does req; progress receives go-git's progress lines when the request
// asks for them.
func Do(ctx context.Context, req plugins.GitRequest, progress io.Writer) plugins.GitResponse {
	var resp plugins.GitResponse
	if req.Protocol != plugins.GitProtocol {
		return answer(resp, fmt.Errorf("%s speaks protocol %d, this quiver %d: install quiver and %s from one checkout (go install ./cmd/quiver ./cmd/quiver-git)", plugins.GitHelper, plugins.GitProtocol, req.Protocol, plugins.GitHelper))
	}
	if !req.Progress {
		progress = nil
	}
	creds := plugins.Credentials{Token: req.Token, Base: req.Base}
	if len(req.GitConfig) > 0 {
		rw, err := LoadRewrites(req.GitConfig)
		if err != nil {
			resp.ConfigError = err.Error()
		}
		req.URL = rw.Apply(req.URL)
	}
	var err error
	switch req.Op {
	case "fetch":
		if req.Dst == "" && req.Store == "" {
			err = fmt.Errorf("%s: a fetch names where to put it, a folder or the store", plugins.GitHelper)
			break
		}
		if req.Store != "" {
			resp.Commit, resp.Kind, resp.FromStore, err = storeFetch(ctx, creds, req.URL, req.Source, req.Ref, req.Store, req.Dst, req.Sub, progress)
			break
		}
		resp.Commit, resp.Kind, err = fetch(ctx, creds, req.URL, req.Ref, req.Dst, req.Sparse, progress)
		if err == nil && req.Sparse != "" {
			if nf := notAFolder(req.Dst, req.Sparse[:len(req.Sparse)-1]); nf != nil {
				resp.NotAFolder = &plugins.GitError{Message: nf.Error(), Is: plugins.GitErrorNames(nf)}
			}
		}
	case "latest":
		resp.Commit, resp.Kind, err = latest(ctx, creds, req.URL, req.Ref)
	case "rewrite":
		resp.URL = req.URL
	case "digest":
		if req.Store != "" {
			resp.Files, err = storedDigest(ctx, req.Store, req.Ref, req.Sub)
			break
		}
		resp.Files, err = digest(req.Dir)
	case "tracked":
		resp.Tracked = tracked(req.Dir, req.Paths)
	default:
		err = fmt.Errorf("%s: no such work %q", plugins.GitHelper, req.Op)
	}
	return answer(resp, err)
}

func answer(resp plugins.GitResponse, err error) plugins.GitResponse {
	if err != nil {
		resp.Error = &plugins.GitError{Message: err.Error(), Is: plugins.GitErrorNames(err)}
	}
	return resp
}

// latest says what ref points to now at source without cloning: the
// commit (empty for an abbreviated SHA that no ref points at) and its
// kind.
func latest(ctx context.Context, c plugins.Credentials, source, ref string) (string, plugins.RefKind, error) {
	t, _, _, err := resolve(ctx, c, source, ref)
	if err != nil {
		return "", "", err
	}
	if t.full {
		return "", t.kind, nil
	}
	return t.commit.String(), t.kind, nil
}
