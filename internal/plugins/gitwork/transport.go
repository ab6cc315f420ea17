package gitwork

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// Limits on what a git server may send. go-git reads a ref advertisement
// whole into memory, so a server that advertises refs without end grows
// quiver's memory until it is killed; a pack is bounded too, so a fetch
// that never ends is an error rather than a full disk. Variables so tests
// can lower them.
var (
	// maxAdvertisement bounds GET .../info/refs: GitHub's largest
	// repositories, pull request refs included, advertise a few MiB.
	maxAdvertisement int64 = 64 << 20
	// maxPackResponse bounds a POST .../git-upload-pack response, the
	// pack of one shallow commit (or a whole history when the server
	// cannot send a single commit).
	maxPackResponse int64 = 2 << 30
)

var installTransport = sync.OnceFunc(func() {
	c := githttp.NewClient(&http.Client{Transport: limitedTransport{http.DefaultTransport}, CheckRedirect: sameOrigin})
	client.InstallProtocol("http", c)
	client.InstallProtocol("https", c)
})

// sameOrigin follows a redirect only within the scheme, host and port the
// fetch was asked for (a repository renamed on its host, as GitHub
// redirects it): everything quiver judges about a source (the policy's
// sources rules, a lock's https-only rule, where a token may go) is about
// the URL asked for, so a redirect to another host, or from https to
// http, would fetch what no rule saw. It is refused, naming where it led.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("stopped after %d redirects", len(via))
	}
	first := via[0].URL
	if !strings.EqualFold(req.URL.Scheme, first.Scheme) || !strings.EqualFold(req.URL.Host, first.Host) {
		return fmt.Errorf("%s redirects to %s://%s, which quiver does not follow (no rule judged that source); if the repository moved, use its new URL", first.Host, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// limitedTransport caps every response body it passes to go-git.
type limitedTransport struct{ next http.RoundTripper }

func (t limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	limit, what := maxPackResponse, "pack"
	if strings.HasSuffix(req.URL.Path, "/info/refs") {
		limit, what = maxAdvertisement, "list of refs"
	}
	resp.Body = &limitedBody{rc: resp.Body, left: limit, limit: limit, what: what}
	return resp, nil
}

// limitedBody fails the read that would pass its limit, so go-git stops
// with an error naming the limit instead of a truncated stream it might
// misread.
type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
	what        string
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the server sent a %s larger than %d MiB; refused", b.what, b.limit>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
