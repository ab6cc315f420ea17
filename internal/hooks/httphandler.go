package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/claude"
	"github.com/quiver-cli/quiver/internal/proc"
)

// runHTTP runs an http handler (SPEC §15): it posts input to the
// handler's url with its headers and reads the answer as a command's
// stdout on exit 0. No redirect is followed; an answer other than 2xx, a
// body that is not a JSON object, or a network error is a failure, which
// blocks only with onFailure: block or fail-closed. The headers may
// carry secrets from the environment: nothing here repeats them, nor the
// server's own words (its status line, its body) in an error.
func (e *Executor) runHTTP(ctx context.Context, h discovery.Hook, event string, input []byte, env []string, timeout time.Duration) Outcome {
	hd := h.Handler
	start := time.Now()
	o := Outcome{Hook: h, ExitCode: -1}
	fail := func(status Status, msg string) Outcome {
		o.Status, o.Error, o.Duration = status, msg, time.Since(start)
		return o
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hd.URL, bytes.NewReader(input))
	if err != nil {
		return fail(Failed, "cannot send it: the url is not one to post to")
	}
	// The variables come from the environment a command handler would
	// get, so quiver's own secrets are not in it either.
	vars := map[string]string{}
	for _, kv := range proc.Environ(env...) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	req.Header = claude.Headers(hd.Headers, hd.AllowedEnvVars, func(k string) string { return vars[k] })
	client := &http.Client{
		Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is an answer, not 2xx
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fail(TimedOut, fmt.Sprintf("timed out after %s", timeout))
		}
		return fail(Failed, "cannot reach "+hd.URL+": "+netReason(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxStdout+1))
	o.Stdout = body
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fail(Failed, fmt.Sprintf("answered HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode)))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fail(TimedOut, fmt.Sprintf("timed out after %s", timeout))
	case err != nil:
		return fail(Failed, "its answer was cut: "+netReason(err))
	case len(body) > MaxStdout:
		return fail(Failed, fmt.Sprintf("its answer exceeded %d bytes", MaxStdout))
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if body[0] != '{' || !json.Valid(body) {
		return fail(Failed, "its answer is not a JSON object")
	}
	o.ExitCode, o.Duration = 0, time.Since(start)
	return claudeOutcome(o, event, 0, body, nil)
}

// netReason is why a request failed, without the request: Go's errors
// name the method and url, which the caller says once.
func netReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
