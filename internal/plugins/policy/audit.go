package policy

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// CheckName is the name of the audit check Audit returns.
const CheckName = "policy"

// Rules are the rules Audit may report, for SARIF's rule list.
var Rules = []audit.Rule{
	{ID: RuleSourceDenied, Severity: audit.Error, Description: "An installed plugin's source is not allowed by the team policy", SecuritySeverity: "7.0"},
	{ID: RuleMarketplaceDenied, Severity: audit.Error, Description: "An added marketplace is not allowed by the team policy", SecuritySeverity: "7.0"},
	{ID: RuleUnpinned, Severity: audit.Error, Description: "A lock entry follows a branch where the policy requires a tag or a commit"},
	{ID: RuleHookTypeDenied, Severity: audit.Error, Description: "A plugin's hook handler is of a type the policy does not allow", SecuritySeverity: "7.0"},
	{ID: RuleHookURLDenied, Severity: audit.Error, Description: "A plugin's http hook posts to a URL the policy does not allow", SecuritySeverity: "7.0"},
	{ID: RuleMCPDenied, Severity: audit.Error, Description: "A plugin carries an MCP server the policy does not allow", SecuritySeverity: "7.0"},
	{ID: RuleMCPTransportDenied, Severity: audit.Error, Description: "A plugin's MCP server uses a transport the policy does not allow", SecuritySeverity: "7.0"},
	{ID: RuleInvalid, Severity: audit.Error, Description: "A policy file cannot be read or does not parse, so nothing may be installed"},
	{ID: RuleUnknownField, Severity: audit.Warning, Description: "A policy file has a field quiver does not know, and ignores"},
	{ID: RuleRefUnchecked, Severity: audit.Warning, Description: "Whether a locked ref is a tag or a branch could not be learned"},
}

// Audit checks what scope s has installed now against the policy, for
// `quiver audit` (SPEC §17): every locked plugin's source (as written and
// as fetched, and its marketplace claim), its pin under require.pinned,
// the handler types and URLs of its hooks and its MCP servers, and every
// locked marketplace's source and pin. It reads and changes nothing else.
//
// Findings are errors (rule ids Rule*, such as quiver/policy/source-denied
// and quiver/policy/unpinned), but for a ref whose kind cannot be learned
// (quiver/policy/ref-unchecked) and a field the policy has that quiver
// does not know (quiver/policy/unknown-field), which are warnings. A
// policy file that does not parse is one error finding. An unpinned entry
// is a finding only under require.pinned.
//
// Each finding's file is the lock file, at the entry's line (or, for a
// hook or an MCP server, the plugin's file that declares it), relative
// to projectRoot; "" for projectRoot (the global scope) keeps paths
// absolute. ask says what a ref is when neither a full commit SHA nor
// the user's records (kept at install and update) tell; nil asks no one,
// and such a ref is a warning. The nil policy passes.
//
// The policy to audit scope s is Load(layout, getenv).Scope(global).
func (p *Policy) Audit(ctx context.Context, s plugins.Scope, projectRoot string, ask RefAsker) audit.Check {
	c := audit.Check{Name: CheckName, Passed: true, Findings: []audit.Finding{}, Rules: Rules}
	if p == nil {
		c.Message = "no policy file applies"
		return c
	}
	rel := func(path string) string {
		if projectRoot == "" || path == "" {
			return path
		}
		if r, err := filepath.Rel(projectRoot, path); err == nil && filepath.IsLocal(r) {
			return filepath.ToSlash(r)
		}
		return path
	}
	add := func(f audit.Finding) {
		c.Findings = append(c.Findings, f)
		if f.Severity == audit.Error {
			c.Passed = false
		}
	}
	for _, f := range p.Files {
		for _, w := range f.Warnings {
			add(audit.Finding{Rule: RuleUnknownField, Severity: audit.Warning, Message: w, File: rel(f.Path), Line: 1})
		}
	}
	if len(p.Files) == 0 {
		c.Message = "no policy file applies"
		return c
	}
	if err := p.Err(); err != nil {
		var b *BrokenError
		errors.As(err, &b)
		add(audit.Finding{Rule: RuleInvalid, Severity: audit.Error, Message: err.Error(), File: rel(b.Path)})
		c.Message = "the policy does not parse"
		return c
	}
	found, err := p.installedViolations(ctx, s, ask)
	if err != nil {
		add(audit.Finding{Rule: RuleInvalid, Severity: audit.Error, Message: err.Error(), File: rel(s.LockPath())})
		c.Message = "the lock file cannot be read"
		return c
	}
	lines := lockLines(s.LockPath())
	finding := func(v violation, sev audit.Severity) audit.Finding {
		f := audit.Finding{Rule: v.ID, Severity: sev, Message: v.Error(), File: rel(s.LockPath())}
		if v.in != "" {
			f.File = rel(v.in)
		} else {
			f.Line = lines[v.subject()]
		}
		if f.Line == 0 {
			f.Line = 1 // a whole-file finding (SARIF wants a startLine)
		}
		return f
	}
	for _, v := range found.violations {
		add(finding(v, audit.Error))
	}
	for _, v := range found.unchecked {
		add(finding(v, audit.Warning))
	}
	if c.Passed {
		c.Message = fmt.Sprintf("what is installed in %s keeps the policy of %s", s.Root, p.fileList())
	} else {
		c.Message = fmt.Sprintf("what is installed in %s breaks the policy of %s", s.Root, p.fileList())
	}
	return c
}

// fileList names the policy's files for a message.
func (p *Policy) fileList() string {
	out := ""
	for i, f := range p.Files {
		if i > 0 {
			out += ", "
		}
		out += f.Path
	}
	return out
}

// subject is the lock key a violation is about ("plugins/acme/x",
// "marketplaces/m"), for its line; "" when unknown.
func (v violation) subject() string { return v.key }

// lockLines maps "plugins/NAME" and "marketplaces/NAME" to the line of
// that entry's key in the lock file at path (empty when it cannot be
// read).
func lockLines(path string) map[string]int {
	out := map[string]int{}
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err != nil {
		return out
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return out
	}
	top := doc.Content[0].Content
	for i := 0; i+1 < len(top); i += 2 {
		section, m := top[i].Value, top[i+1]
		if (section != "plugins" && section != "marketplaces") || m.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			out[section+"/"+m.Content[j].Value] = m.Content[j].Line
		}
	}
	return out
}
