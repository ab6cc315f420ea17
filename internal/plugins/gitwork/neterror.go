package gitwork

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// unreachable is a failure of the network, in words
// (plugins.ErrUnreachable).
type unreachable string

func (e unreachable) Error() string        { return string(e) }
func (e unreachable) Is(target error) bool { return target == plugins.ErrUnreachable }

// networkTrouble says in words why the host of shownURL could not be
// talked to, when err is a failure of the network rather than of git:
// the host name does not resolve, nothing answers, no route, no answer
// in time, a certificate this machine does not trust. "" otherwise.
func networkTrouble(shownURL string, err error) string {
	host := shownURL
	if u, perr := url.Parse(shownURL); perr == nil && u.Host != "" {
		host = u.Host
	}
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var hostname x509.HostnameError
	var verify *tls.CertificateVerificationError
	var nerr net.Error
	switch {
	case errors.As(err, &dns):
		return fmt.Sprintf("cannot reach %s: the name %s does not resolve (offline, or a typo in the source?)", host, dns.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("cannot reach %s: nothing answers there (connection refused)", host)
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return fmt.Sprintf("cannot reach %s: no route to it (offline?)", host)
	case errors.Is(err, syscall.ECONNRESET):
		return fmt.Sprintf("%s closed the connection (a proxy or a firewall?)", host)
	case errors.As(err, &unknownCA), errors.As(err, &invalid), errors.As(err, &hostname), errors.As(err, &verify):
		return fmt.Sprintf("%s's certificate is not trusted on this machine (a proxy that inspects TLS? its CA belongs in the system's store or SSL_CERT_FILE)", host)
	case errors.As(err, &nerr) && nerr.Timeout():
		return fmt.Sprintf("%s did not answer in time", host)
	}
	return ""
}
