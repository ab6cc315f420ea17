package discovery

import (
	"context"
	"fmt"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
	"github.com/quiver-cli/quiver/internal/term"
)

// Rule ids of HookCheck.
const (
	RuleHookUntrusted  = "quiver/hooks/untrusted"
	RuleHookInvalid    = "quiver/hooks/invalid"
	RuleHookUnreadable = "quiver/hooks/unreadable"
)

// HookRules are the rules HookCheck reports.
var HookRules = []audit.Rule{
	{ID: RuleHookUntrusted, Severity: audit.Warning,
		Description: "A project hook is not trusted here, so it does not run (trust lives in each user's home)"},
	{ID: RuleHookInvalid, Severity: audit.Warning,
		Description: "An installed hook is invalid, so it does not run"},
	{ID: RuleHookUnreadable, Severity: audit.Error,
		Description: "The scope's hooks cannot be discovered"},
}

// HookCheck is discovery's check for `quiver audit` (SPEC §17): the hooks
// of scope l that do not run as installed. An untrusted project hook is a
// warning (trust lives in each user's home, so a CI machine sees every
// project hook untrusted), as is an invalid hook; a handler that only
// Claude Code runs is neither. A scope whose hooks cannot be discovered
// is an error. It never runs an untrusted hook.
func HookCheck(ctx context.Context, o Options, l plugins.Location) audit.Check {
	c := audit.Check{Name: "hooks", Rules: HookRules}
	hs, err := Hooks(ctx, o)
	if err != nil {
		c.Message = "the hooks cannot be discovered"
		c.Findings = []audit.Finding{{Rule: RuleHookUnreadable, Severity: audit.Error, Message: err.Error(),
			File: o.Layout.Scope(l == plugins.Global).Root}}
		return c
	}
	total, untrusted, invalid := 0, 0, 0
	for _, h := range hs.Hooks {
		if h.Location != l {
			continue
		}
		total++
		if _, claudeOnly := h.ForClaude(); claudeOnly {
			continue
		}
		switch h.Status {
		case Untrusted:
			untrusted++
			c.Findings = append(c.Findings, audit.Finding{Rule: RuleHookUntrusted, Severity: audit.Warning, File: h.Path,
				Message: fmt.Sprintf("project hook %s is not trusted here, so it does not run; review it, then run quiver trust (trust is each user's: a CI machine trusts no project hook)", h.Name)})
		case Invalid:
			invalid++
			c.Findings = append(c.Findings, audit.Finding{Rule: RuleHookInvalid, Severity: audit.Warning, File: h.Path,
				Message: fmt.Sprintf("hook %s is invalid, so it does not run: %s", h.Name, h.Reason)})
		}
	}
	c.Message = fmt.Sprintf("%s: %d untrusted, %d invalid", term.Count(total, "hook"), untrusted, invalid)
	return c
}
