package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// samplePayload is the minimal payload validate runs a hook of event with.
func samplePayload(event string) string {
	switch event {
	case format.BeforeToolCall:
		return `{"conv_id":"quiver-validate","tool_name":"bash","tool_input":{"command":"echo hello"},"tool_user_id":"validate"}`
	case format.AfterToolCall:
		return `{"conv_id":"quiver-validate","tool_name":"bash","tool_input":{"command":"echo hello"},"tool_output":"hello\n","tool_user_id":"validate"}`
	case format.UserMessageSend:
		return `{"conv_id":"quiver-validate","message":"hello"}`
	case format.AgentStop:
		return `{"conv_id":"quiver-validate","messages":[]}`
	case format.TurnEnd:
		return `{"conv_id":"quiver-validate","response":"hello","turn_number":1}`
	case format.SessionStart:
		return `{"conv_id":"quiver-validate","source":"startup"}`
	}
	return ""
}

// Validate is plugin validate of the folder dir, relative to the working
// directory: its report (ValidatePlugin), or an error when dir is no
// folder.
func Validate(ctx context.Context, dir string, o ValidateOptions) (format.Report, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return format.Report{}, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return format.Report{}, fmt.Errorf("%s is not a folder", dir)
	}
	return format.NewReport(abs, ValidatePlugin(ctx, abs, o)), nil
}

// ValidateOptions are plugin validate's: Run runs each native hook
// (asking QueryTimeout at most for its event), and Running, when set,
// hears how many native hooks it is about to run before any starts (0:
// the plugin has none, its hooks.json handlers are only read).
type ValidateOptions struct {
	Run          bool
	QueryTimeout time.Duration
	Running      func(natives int)
}

// ValidatePlugin is plugin validate's findings: format.Validate of the plugin folder
// dir, plus, with run, each native hook's answer to `hook` and a run on a
// minimal payload for its event (which runs the plugin's code).
func ValidatePlugin(ctx context.Context, dir string, o ValidateOptions) []format.Finding {
	out, natives := format.Validate(dir)
	run, queryTimeout := o.Run, o.QueryTimeout
	if run && o.Running != nil {
		o.Running(len(natives))
	}
	rel := func(p string) string {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(r)
	}
	if !run {
		for _, h := range natives {
			out = append(out, format.Finding{Severity: "info", File: rel(h.Path), Reason: "not run: its event and its answer are checked with --run, which runs it"})
		}
		return out
	}
	dataDir, err := os.MkdirTemp("", "quiver-validate-")
	if err == nil {
		defer os.RemoveAll(dataDir)
	}
	ex := &Executor{ProjectDir: dir, Timeout: 10 * time.Second}
	for _, h := range natives {
		out = append(out, runHookCheck(ctx, dir, rel(h.Path), h.Path, dataDir, ex, queryTimeout)...)
	}
	return out
}

// runHookCheck runs one native hook as validate --run does: its answer to
// `hook`, then `run` on the sample payload for its event.
func runHookCheck(ctx context.Context, dir, relPath, path, dataDir string, ex *Executor, queryTimeout time.Duration) []format.Finding {
	errf := func(reason, fix string) []format.Finding {
		return []format.Finding{{Severity: "error", File: relPath, Reason: reason, Fix: fix}}
	}
	declared, err := discovery.AskType(ctx, path, dir, ex.Env, queryTimeout)
	event := declared.Event
	if err != nil {
		return errf(err.Error(), "make `"+relPath+" hook` print the event it handles (docs/hooks.md lists them)")
	}
	p, _ := ParsePayload(event, []byte(samplePayload(event)), dir)
	data, _ := json.Marshal(p)
	h := discovery.Hook{Name: relPath, Path: path, Location: plugins.Local, Status: discovery.Active}
	if dataDir != "" {
		h.PluginRoot, h.DataDir = dir, filepath.Join(dataDir, "data")
		h.Plugin, _ = plugins.ParseName("validate/plugin")
	}
	o := ex.Run(ctx, h, event, data, dir)
	if o.Status == Failed || o.Status == TimedOut {
		return errf(fmt.Sprintf("fails `run` on a minimal %s payload: %s", event, o.Error),
			"tolerate missing fields; print nothing and exit 0 for no action (try: quiver hook test ./"+relPath+" --event "+event+")")
	}
	return nil
}
