package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
)

// TestReport is what hook test says of one hook run alone: what it
// declares, what it did, and what quiver makes of it.
type TestReport struct {
	Name          string    `json:"name"`
	Path          string    `json:"path"`
	Event         string    `json:"event"`
	DeclaredEvent string    `json:"declared_event"`
	Persistent    bool      `json:"persistent,omitempty"`
	Format        string    `json:"format"`
	DeclareError  string    `json:"declare_error,omitempty"`
	Status        Status    `json:"status"`
	Reason        string    `json:"reason,omitempty"`
	Error         string    `json:"error,omitempty"`
	ExitCode      int       `json:"exit_code"`
	DurationMS    float64   `json:"duration_ms"`
	Stdout        string    `json:"stdout"`
	Stderr        string    `json:"stderr"`
	Response      *Response `json:"response,omitempty"`
}

// TestHook runs hook h alone for event with payload, as hook test does: a
// native hook is asked `hook` first (queryTimeout bounds it), a Claude
// handler's event comes from its hooks.json (its scripts are never asked:
// that would run them for real), and a handler whose matcher or condition
// does not select the payload is not started.
func TestHook(ctx context.Context, ex *Executor, h discovery.Hook, event string, payload Payload, queryTimeout time.Duration) TestReport {
	rep := TestReport{Name: h.Name, Path: h.Path, Event: event}
	if h.Handler != nil {
		rep.DeclaredEvent, rep.Format = h.Event, discovery.FormatClaude
		if h.Event == "" {
			rep.DeclareError = h.Reason
		}
	} else {
		declared, err := discovery.AskType(ctx, h.Path, ex.ProjectDir, ex.Env, queryTimeout)
		rep.DeclaredEvent, rep.Persistent, rep.Format = declared.Event, declared.Persistent, discovery.FormatNative
		if err != nil {
			rep.DeclareError = err.Error()
		}
	}
	if home, _ := os.UserHomeDir(); h.Selector != nil && !h.Selector.Selects(payload, ex.ProjectDir, home) {
		rep.Status = Skipped
		rep.Reason = fmt.Sprintf("not started: its matcher %q or condition %q does not select this payload", h.Handler.Matcher, h.Handler.If)
		return rep
	}
	var out Outcome
	t := &Trigger{Run: ex.Run, ProjectDir: ex.ProjectDir}
	t.OnOutcome = func(_ string, oc Outcome, _ bool) { out = oc }
	t.Fire(ctx, event, payload, []discovery.Hook{h})
	rep.Status, rep.Reason, rep.Error, rep.ExitCode = out.Status, out.Reason, out.Error, out.ExitCode
	rep.DurationMS = float64(out.Duration.Microseconds()) / 1000
	rep.Stdout, rep.Stderr, rep.Response = string(out.Stdout), string(out.Stderr), out.Response
	return rep
}

// IsPath reports whether a hook test target is written as a path: /x, or
// with a segment that starts with "." (./x, ../x, .quiver/hooks/x), which
// no hook name can have since hidden files are never items. Anything else
// is a hook name, even where a file of that name exists in the current
// folder: a repository could put one there to catch "hook test
// acme/guard/check".
func IsPath(target string) bool {
	if filepath.IsAbs(target) {
		return true
	}
	for _, seg := range strings.Split(filepath.ToSlash(target), "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// FindHook resolves hook test's PATH|NAME: a path (see IsPath) is run as
// given; a name is looked up in discovery, refusing untrusted and invalid
// project hooks.
func FindHook(ctx context.Context, o discovery.Options, target string) (discovery.Hook, error) {
	if IsPath(target) {
		fi, err := os.Stat(target)
		if err != nil {
			return discovery.Hook{}, err
		}
		if !fi.Mode().IsRegular() {
			return discovery.Hook{}, fmt.Errorf("%s is %s, not a hook file", target, safefs.Kind(fi.Mode()))
		}
		abs, err := filepath.Abs(target)
		if err != nil {
			return discovery.Hook{}, err
		}
		return discovery.Hook{Name: filepath.Base(abs), Path: abs, Location: plugins.Local}, nil
	}
	hs, err := discovery.Hooks(ctx, o)
	if err != nil {
		return discovery.Hook{}, err
	}
	var found *discovery.Hook
	for i := range hs.Hooks {
		h := &hs.Hooks[i]
		if h.Name == target && (found == nil || h.Status == discovery.Active) {
			found = h
		}
	}
	switch {
	case found == nil:
		if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
			return discovery.Hook{}, fmt.Errorf("no hook named %s; to run the file of that name, write it as a path: ./%s", target, target)
		}
		return discovery.Hook{}, fmt.Errorf("no hook named %s; see quiver hook list --all (write a file as ./path)", target)
	case found.Status == discovery.Untrusted:
		return discovery.Hook{}, fmt.Errorf("hook %s is an untrusted project hook; review it and run quiver trust, or pass its path to run it deliberately", target)
	case found.Status == discovery.Invalid:
		return discovery.Hook{}, fmt.Errorf("hook %s is invalid: %s; pass its path (%s) to run it deliberately", target, found.Reason, found.Path)
	}
	return *found, nil
}

// Declares says what the hook declared for "hook", against the event it
// was sent.
func (r TestReport) Declares() string {
	switch {
	case r.DeclareError != "":
		return "nothing valid: " + r.DeclareError
	case r.DeclaredEvent != r.Event:
		return fmt.Sprintf("%s (but was sent %s: quiver would never run it for that event)", r.DeclaredEvent, r.Event)
	case r.Persistent:
		return r.DeclaredEvent + " persistent (hook serve keeps '<hook> serve' running; tested here one-shot)"
	}
	return r.DeclaredEvent
}

// Lines are what hook test prints of r for people: what the hook
// declares, its exit code and duration, its stdout and stderr indented
// line by line, and the verdict; what the hook wrote is made visible
// (safefs.Visible).
func (r TestReport) Lines() []string {
	out := []string{
		fmt.Sprintf("hook:      %s (%s)", safefs.Visible(r.Name), safefs.Visible(r.Path)),
		"declares:  " + safefs.Visible(r.Declares()),
		fmt.Sprintf("exit code: %d", r.ExitCode),
		fmt.Sprintf("duration:  %.1f ms", r.DurationMS),
	}
	for _, b := range [][2]string{{"stdout:", r.Stdout}, {"stderr:", r.Stderr}} {
		s := strings.TrimRight(b[1], "\n")
		if s == "" {
			out = append(out, b[0]+" (empty)")
			continue
		}
		out = append(out, b[0])
		for _, line := range strings.Split(s, "\n") {
			out = append(out, "  "+safefs.Visible(line))
		}
	}
	return append(out, "verdict:   "+safefs.Visible(r.Verdict()))
}

// Verdict says what quiver makes of the run: its status, why, and what
// the answer changes (the tool's input or output, follow-ups, context for
// the model, a notice for the user).
func (r TestReport) Verdict() string {
	verdict := string(r.Status)
	switch r.Status {
	case Blocked, Asked, Skipped:
		verdict += ": " + r.Reason
	case Failed, TimedOut:
		verdict += ": " + r.Error
	case NoAction:
		verdict += " (empty stdout, exit 0)"
	case OK:
		if r.Response != nil && r.Response.Input != nil {
			verdict += "; replaces tool_input with " + string(r.Response.Input)
		}
		if r.Response != nil && r.Response.Output != nil {
			verdict += "; replaces tool_output with " + string(r.Response.Output)
		}
		if r.Response != nil && len(r.Response.FollowUpMessages) > 0 {
			verdict += "; adds " + term.Count(len(r.Response.FollowUpMessages), "follow-up message")
		}
	}
	if r.Response != nil && r.Response.Context != "" {
		verdict += "; context for the model: " + r.Response.Context
	}
	if r.Response != nil && r.Response.Notice != "" {
		verdict += "; notice for the user: " + r.Response.Notice
	}
	return verdict
}
