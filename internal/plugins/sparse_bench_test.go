package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/quiver-cli/quiver/internal/gitserver"
)

// BenchmarkSubfolderFetch measures whether go-git's sparse checkout pays
// off for a subfolder install (SPEC §12): a 400-file repository (40
// folders of 10 files of 2 KiB) served by the loopback git server, one
// folder of it wanted. "install" is Fetcher.Fetch as plugin add runs it
// (shallow fetch, checks, sparse checkout, the folder moved out); "full"
// and "sparse" are the bare go-git steps with and without
// SparseCheckoutDirectories, so that they differ in that alone. The
// fetch itself is the same in all three: go-git has no partial clone, so
// every blob comes over the wire either way.
//
// Measured on the 2-core machine of FIELD-NOTES.md: full 410-440 ms,
// sparse 55-75 ms, install 500 ms with a full checkout and 125-145 ms
// sparse. Writing files is the cost, so subfolder fetches are sparse.
func BenchmarkSubfolderFetch(b *testing.B) {
	srv := gitserver.New(b, gitserver.Options{})
	src := b.TempDir()
	for d := range 40 {
		for f := range 10 {
			p := filepath.Join(src, fmt.Sprintf("plugins/p%02d/recipes/r%d.md", d, f))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("folder %d file %d\n", d, f), 110)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	commit, err := srv.Commit("acme/mono", "main", src, "400 files")
	if err != nil {
		b.Fatal(err)
	}
	url := srv.RepoURL("acme/mono")
	work := b.TempDir()
	n := 0
	next := func() string { n++; return filepath.Join(work, fmt.Sprint(n)) }

	b.Run("install", func(b *testing.B) {
		spec, err := ParseSpec(url, "", "/")
		if err != nil {
			b.Fatal(err)
		}
		spec.Ref = commit
		if err := spec.SetSubdir("plugins/p07"); err != nil {
			b.Fatal(err)
		}
		f := &Fetcher{}
		for b.Loop() {
			dst := next()
			if _, err := f.Fetch(b.Context(), spec, false, dst); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.RemoveAll(dst)
			b.StartTimer()
		}
	})
	for _, sparse := range []bool{false, true} {
		name := "full"
		if sparse {
			name = "sparse"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				dst := next()
				repo, err := git.PlainInit(dst, false)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
					b.Fatal(err)
				}
				err = repo.FetchContext(b.Context(), &git.FetchOptions{RemoteName: "origin", Depth: 1, Tags: git.NoTags,
					RefSpecs: []config.RefSpec{config.RefSpec(commit + ":refs/heads/pinned")}})
				if err != nil {
					b.Fatal(err)
				}
				wt, err := repo.Worktree()
				if err != nil {
					b.Fatal(err)
				}
				co := &git.CheckoutOptions{Hash: plumbing.NewHash(commit), Force: true}
				if sparse {
					co.SparseCheckoutDirectories = []string{"plugins/p07"}
				}
				if err := wt.Checkout(co); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				got, _ := filepath.Glob(filepath.Join(dst, "plugins", "*", "recipes", "*.md"))
				want := 400
				if sparse {
					want = 10
				}
				if len(got) != want {
					b.Fatalf("%d files checked out, want %d", len(got), want)
				}
				os.RemoveAll(dst)
				b.StartTimer()
			}
		})
	}
}
