package gitwork

import (
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// A request of another protocol version (an old quiver-git on PATH, or a
// newer one) is refused with what to do, never misread.
func TestDoRefusesAnotherProtocol(t *testing.T) {
	resp := Do(t.Context(), plugins.GitRequest{Protocol: plugins.GitProtocol + 1, Op: "latest", URL: t.TempDir()}, nil)
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "install quiver and quiver-git from one checkout") {
		t.Errorf("answer = %+v, want a refusal naming the fix", resp.Error)
	}
	resp = Do(t.Context(), plugins.GitRequest{Protocol: plugins.GitProtocol, Op: "nosuch"}, nil)
	if resp.Error == nil || !strings.Contains(resp.Error.Message, `no such work "nosuch"`) {
		t.Errorf("answer = %+v, want an unknown op refused", resp.Error)
	}
}

// A fetch the network fails says which failure in words, tells a caller
// on the other side of the pipe it was the network (unreachable), and
// carries none of Go's dial text.
func TestNetworkFailuresInWords(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/acme/guard"
	l.Close()
	resp := Do(t.Context(), plugins.GitRequest{Protocol: plugins.GitProtocol, Op: "latest", URL: closed}, nil)
	if resp.Error == nil {
		t.Fatal("a fetch from a closed port succeeded")
	}
	if msg := resp.Error.Message; !strings.Contains(msg, "nothing answers there (connection refused); check the network") || strings.Contains(msg, "dial tcp") {
		t.Errorf("message = %q", msg)
	}
	if !slices.Contains(resp.Error.Is, "unreachable") {
		t.Errorf("is = %v, want unreachable", resp.Error.Is)
	}

	dns := &url.Error{Op: "Get", URL: "https://github.com/acme/guard", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "github.com", Server: "10.0.0.53:53", IsNotFound: true}}}
	got := gitError("https://github.com/acme/guard", dns)
	if !errors.Is(got, plugins.ErrUnreachable) || !strings.Contains(got.Error(), "the name github.com does not resolve (offline, or a typo in the source?)") || strings.Contains(got.Error(), "10.0.0.53") {
		t.Errorf("DNS failure = %v", got)
	}
	if other := gitError("https://x", errors.New("odd")); errors.Is(other, plugins.ErrUnreachable) {
		t.Errorf("a failure that is not the network's is called unreachable: %v", other)
	}
}
