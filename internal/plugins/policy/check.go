package policy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Rule ids: stable, for refusals and `quiver audit` (SARIF ruleIds).
const (
	RuleSourceDenied       = "quiver/policy/source-denied"
	RuleMarketplaceDenied  = "quiver/policy/marketplace-denied"
	RuleUnpinned           = "quiver/policy/unpinned"
	RuleLockFrozen         = "quiver/policy/lock-frozen"
	RuleHookTypeDenied     = "quiver/policy/hook-type-denied"
	RuleHookURLDenied      = "quiver/policy/hook-url-denied"
	RuleMCPDenied          = "quiver/policy/mcp-denied"
	RuleMCPTransportDenied = "quiver/policy/mcp-transport-denied"
	// RuleInvalid is a policy file that cannot be read or does not
	// parse; RuleUnknownField a field quiver ignores; RuleRefUnchecked
	// a ref whose kind audit could not learn (warnings both).
	RuleInvalid      = "quiver/policy/invalid"
	RuleUnknownField = "quiver/policy/unknown-field"
	RuleRefUnchecked = "quiver/policy/ref-unchecked"
)

// violation is a refusal and the file of the plugin that carries what
// was refused (a hooks.json, a .mcp.json), "" when it is the source.
type violation struct {
	*plugins.Refusal
	in string
	// key is the lock entry it is about ("plugins/acme/x"), for audit.
	key string
}

func refuse(id string, f *File, rule, format string, a ...any) violation {
	return violation{Refusal: &plugins.Refusal{ID: id, File: f.Path, Rule: rule, Message: fmt.Sprintf(format, a...)}}
}

// CheckSource implements plugins.Gate: a plugin's source against the
// sources rules, a marketplace's against the marketplaces rules, before
// anything is fetched.
func (p *Policy) CheckSource(ctx context.Context, c plugins.Candidate) error {
	if err := p.Err(); err != nil {
		return err
	}
	if v := p.sourceViolations(c); len(v) > 0 {
		return v[0].Refusal
	}
	return nil
}

// CheckStaged implements plugins.Gate: once fetched, a candidate's pin
// (require.pinned, asking the remote what a ref is when it must) and a
// plugin's parts (hooks and MCP servers) at root.
func (p *Policy) CheckStaged(ctx context.Context, c plugins.Candidate, root string) error {
	if err := p.Err(); err != nil {
		return err
	}
	v, err := p.pinViolation(ctx, c)
	if err != nil {
		return err
	}
	if v != nil {
		return v.Refusal
	}
	if c.IsMarketplace {
		return nil
	}
	if vs := p.partViolations(c.Name, root); len(vs) > 0 {
		return vs[0].Refusal
	}
	return nil
}

// forms are what a candidate is matched as (SPEC §17): its normalised
// source as written and as fetched after insteadOf, and, for a plugin
// from a marketplace whose entry checks out, marketplace:SOURCE of that
// marketplace (as written and fetched). subject is how messages name it.
func (p *Policy) forms(c plugins.Candidate) (subject string, forms []string, shown map[string]string) {
	subject = plugins.NormalSource(c.Source)
	forms = []string{subject}
	shown = map[string]string{subject: subject}
	add := func(form, as string) {
		if form != "" && !slices.Contains(forms, form) {
			forms = append(forms, form)
			shown[form] = subject + " (" + as + ")"
		}
	}
	add(plugins.NormalSource(c.Fetched), "fetched as "+plugins.NormalSource(c.Fetched))
	if dir, ok := strings.CutPrefix(subject, "local:"); ok {
		// A folder is what its path leads to: a link in an allowed
		// folder to a denied one is denied.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			add("local:"+real, "which is local:"+real)
		}
	}
	if !c.IsMarketplace && c.Market != "" {
		if src, ok := p.verifiedMarketplace(c); ok {
			m := marketplacePrefix + plugins.NormalSource(src)
			add(m, "from "+m)
			fm := marketplacePrefix + plugins.NormalSource(p.fetched(src))
			add(fm, "from "+fm)
		}
	}
	return subject, forms, shown
}

// verifiedMarketplace is the source of the marketplace a plugin says it
// came from, when that marketplace, checked out at its locked commit,
// has an entry of the plugin's name that resolves to the plugin's source
// and folder; a claim that does not check out is not honoured.
func (p *Policy) verifiedMarketplace(c plugins.Candidate) (string, bool) {
	if c.Name.Org() != c.Market {
		return "", false // installed under a name of its own (--name)
	}
	store := &marketplace.Store{Layout: p.layout, Global: c.Scope.Location == plugins.Global, GitBase: p.gitBase}
	co, err := store.Find(c.Market)
	if err != nil || !p.checkoutVerified(co.MarketplaceCheckout) {
		return "", false
	}
	e, _, err := co.Market.Find(c.Name.Repo())
	if err != nil {
		return "", false
	}
	spec, err := co.EntrySpec(e, p.gitBase)
	if err != nil || !plugins.SameSource(spec.Source(), c.Source) || spec.Subdir != c.Path {
		return "", false
	}
	return co.Entry.Source, true
}

// checkoutVerified says whether a marketplace checkout is what this
// machine put in place for its lock entry (plugins.CheckoutVerified): a
// checkout a repository committed, or a pull overwrote, is no proof of
// what the marketplace lists. The answer is kept for the policy's life.
func (p *Policy) checkoutVerified(mc plugins.MarketplaceCheckout) bool {
	key := mc.Dir + "\x00" + mc.Entry.Source + "\x00" + mc.Entry.Ref + "\x00" + mc.Entry.Commit
	c := p.checkouts
	c.Lock()
	defer c.Unlock()
	if ok, seen := c.m[key]; seen {
		return ok
	}
	ok := plugins.CheckoutVerified(mc.Scope, mc.Name, mc.Entry)
	if c.m == nil {
		c.m = map[string]bool{}
	}
	c.m[key] = ok
	return ok
}

// sourceViolations checks c's forms: a deny of any file that matches any
// form refuses (deny beats allow); then each file's allow list must match
// some form.
func (p *Policy) sourceViolations(c plugins.Candidate) []violation {
	subject, forms, shown := p.forms(c)
	section, id, what := "sources", RuleSourceDenied, "installed"
	lists := func(f *File) Lists { return f.Sources }
	if c.IsMarketplace {
		section, id, what = "marketplaces", RuleMarketplaceDenied, "added"
		lists = func(f *File) Lists { return f.Marketplaces }
	}
	var out []violation
	for _, f := range p.Files {
	deny:
		for _, pat := range lists(f).Deny {
			for _, form := range forms {
				if Match(pat, form) {
					out = append(out, refuse(id, f, section+".deny", "%s is denied by %s", shown[form], pat))
					break deny
				}
			}
		}
	}
	for _, f := range p.Files {
		allow := lists(f).Allow
		if allow == nil || matchesAny(allow, forms) {
			continue
		}
		if len(allow) == 0 {
			out = append(out, refuse(id, f, section+".allow", "%s is not allowed: %s.allow is [] (nothing may be %s)", subject, section, what))
		} else {
			out = append(out, refuse(id, f, section+".allow", "%s is not allowed by %s.allow (%s)", subject, section, strings.Join(allow, ", ")))
		}
	}
	return out
}

func matchesAny(patterns, forms []string) bool {
	for _, pat := range patterns {
		for _, form := range forms {
			if Match(pat, form) {
				return true
			}
		}
	}
	return false
}

// pinner is the first file that sets require.pinned, nil for none.
func (p *Policy) pinner() *File {
	for _, f := range p.Files {
		if f.Require.Pinned {
			return f
		}
	}
	return nil
}

// pinViolation checks require.pinned: every entry pinned to a tag or a
// full commit SHA. A ref's kind cannot be told from its name: c.Kind asks
// (the remote, or the records); a nil Kind, or one that has no answer, is
// the error (not a violation: it could not be checked). Local folders are
// governed by sources only.
func (p *Policy) pinViolation(ctx context.Context, c plugins.Candidate) (*violation, error) {
	f := p.pinner()
	// A --link install is of a local folder; a lock entry that says
	// link: true of anything else is no local folder, and is judged.
	if f == nil || c.Local {
		return nil, nil
	}
	what := "plugin " + c.Name.String()
	if c.IsMarketplace {
		what = "marketplace " + cmpOr(c.Market, plugins.NormalSource(c.Source))
	}
	const want = "require.pinned wants a tag or a full commit SHA"
	switch {
	case c.Ref == "":
		v := refuse(RuleUnpinned, f, "require.pinned", "%s tracks the default branch of %s; %s", what, plugins.NormalSource(c.Source), want)
		return &v, nil
	case plugins.IsCommit(c.Ref):
		return nil, nil
	}
	if c.Kind == nil {
		return nil, fmt.Errorf("%s: cannot tell whether %s is a tag or a branch", what, c.Ref)
	}
	kind, err := c.Kind(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: require.pinned: cannot tell whether %s is a tag or a branch: %w", what, c.Ref, err)
	}
	switch kind {
	case plugins.TagRef:
		return nil, nil
	case plugins.CommitRef:
		v := refuse(RuleUnpinned, f, "require.pinned", "%s is pinned to %s, an abbreviated commit; %s", what, c.Ref, want)
		return &v, nil
	case plugins.BranchRef:
		v := refuse(RuleUnpinned, f, "require.pinned", "%s tracks branch %s; %s", what, c.Ref, want)
		return &v, nil
	}
	return nil, fmt.Errorf("%s: cannot tell whether %s is a tag or a branch", what, c.Ref)
}

// partRules reports whether any file has a rule about hooks or MCP
// servers (else a plugin's folder need not be read).
func (p *Policy) partRules() bool {
	for _, f := range p.Files {
		if f.Hooks.HandlerTypes != nil || f.Hooks.HTTPURLs != nil || f.MCP.Allow != nil || f.MCP.Transports != nil {
			return true
		}
	}
	return false
}

// handler is one hook of a plugin as the hooks rules see it.
type handler struct {
	name, typ, url, file string
}

// handlers lists the hooks of the plugin folder root: native hooks are
// commands; a Claude-format configuration that cannot be read is returned
// as problems, since it cannot be checked.
func handlers(root string) (out []handler, problems []string) {
	contents, err := plugins.ScanDir(root)
	if err != nil {
		return nil, []string{err.Error()}
	}
	for _, h := range contents.Hooks {
		if !h.Disabled {
			out = append(out, handler{name: "hooks/" + h.Name, typ: "command", file: h.Path})
		}
	}
	for _, hf := range contents.HookFiles {
		var cfg *format.Config
		var err error
		if hf.Inline != nil {
			cfg, err = format.ParseHooksObject(hf.Inline)
		} else {
			var data []byte
			if data, err = safefs.ReadFile(hf.Path, safefs.MaxMeta); err == nil {
				cfg, err = format.ParseConfig(data)
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", hf.Name, err))
			continue
		}
		for _, h := range cfg.Handlers {
			out = append(out, handler{name: h.ItemName(), typ: cmpOr(h.Type, "command"), url: h.URL, file: hf.Path})
		}
	}
	return out, problems
}

// server is one MCP server of a plugin as mcp rules see it: its quiver
// name, the programs it makes an agent run (its command line; a remote
// server's headersHelper), its URL and transport, and the names of the
// variables its env sets that change what a command line runs.
type server struct {
	kind, name, commandLine, helper, url, transport, file string
	loaders                                               []string
}

// servers lists the servers of the plugin folder root that an agent will
// start or reach, named <org>-<plugin>-<server> as agents without a plugin
// namespace name them: its MCP servers, and its LSP servers, which are
// programs an agent starts as much as a stdio MCP server is, and are
// judged by the same rules.
func servers(n plugins.Name, root string) (out []server, problems []string) {
	parts := plugins.ReadFolderParts(root)
	if _, ok, err := plugins.ReadClaudeManifest(root); ok && err != nil {
		problems = append(problems, fmt.Sprintf("the manifest, which may declare MCP servers: %v", err))
	}
	type declared struct {
		kind string
		plugins.Server
	}
	var all []declared
	for _, s := range parts.MCP {
		all = append(all, declared{"MCP", s})
	}
	for _, s := range parts.LSP {
		all = append(all, declared{"LSP", s})
	}
	for _, s := range all {
		def, err := s.Def()
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s server %s: %v", s.kind, s.Name, err))
			continue
		}
		sv := server{kind: s.kind, name: n.Org() + "-" + n.Repo() + "-" + s.Name, url: def.URL, helper: def.HeadersHelper,
			file: filepath.Join(root, filepath.FromSlash(s.From))}
		if s.kind == "LSP" {
			sv.url = "" // an LSP server is a program, whatever else it says
		}
		if def.Command != "" {
			// stdio whatever type says (SPEC §17).
			sv.transport = "stdio"
			sv.commandLine = strings.Join(append([]string{def.Command}, def.Args...), " ")
			for k := range def.Env {
				if Loader(k) {
					sv.loaders = append(sv.loaders, k)
				}
			}
			slices.Sort(sv.loaders)
		} else {
			sv.transport = strings.ToLower(cmpOr(def.Type, "unknown"))
		}
		out = append(out, sv)
	}
	for _, pr := range parts.Problems {
		if strings.Contains(pr, "mcp") || strings.Contains(pr, "MCP") || strings.Contains(pr, "lsp") || strings.Contains(pr, "LSP") {
			problems = append(problems, pr)
		}
	}
	return out, problems
}

// partViolations checks the hooks and MCP servers of plugin n at root
// against hooks.handler_types, hooks.http_urls, mcp.allow and
// mcp.transports. What cannot be read cannot be checked, and is refused
// by the rule that would have judged it.
func (p *Policy) partViolations(n plugins.Name, root string) []violation {
	if !p.partRules() {
		return nil
	}
	return append(p.hookViolations("plugin "+n.String(), root), p.mcpViolations(n, root)...)
}

// hookViolations checks the hooks of the folder root (a plugin, or a
// scope's standalone hooks), what naming it in messages.
func (p *Policy) hookViolations(what, root string) []violation {
	var out []violation
	hs, problems := handlers(root)
	for _, f := range p.Files {
		if types := f.Hooks.HandlerTypes; types != nil {
			for _, pr := range problems {
				out = append(out, refuse(RuleHookTypeDenied, f, "hooks.handler_types", "%s: %s cannot be checked against hooks.handler_types", what, pr))
			}
			for _, h := range hs {
				if !slices.Contains(types, h.typ) {
					v := refuse(RuleHookTypeDenied, f, "hooks.handler_types", "%s: handler %s is of type %s, not allowed by hooks.handler_types (%s)", what, h.name, h.typ, listed(types))
					v.in = h.file
					out = append(out, v)
				}
			}
		}
		if urls := f.Hooks.HTTPURLs; urls != nil {
			for _, h := range hs {
				if h.typ == "http" && !slices.ContainsFunc(urls, func(pat string) bool { return matchURL(pat, h.url) }) {
					v := refuse(RuleHookURLDenied, f, "hooks.http_urls", "%s: http handler %s posts to %s, not allowed by hooks.http_urls (%s)", what, h.name, safefs.Visible(h.url), listed(urls))
					v.in = h.file
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// mcpViolations checks the MCP servers of plugin n at root.
func (p *Policy) mcpViolations(n plugins.Name, root string) []violation {
	var out []violation
	ss, problems := servers(n, root)
	for _, f := range p.Files {
		if allow := f.MCP.Allow; allow != nil {
			for _, pr := range problems {
				out = append(out, refuse(RuleMCPDenied, f, "mcp.allow", "plugin %s: %s cannot be checked against mcp.allow", n, pr))
			}
			for _, s := range ss {
				if ok, why := s.admitted(allow); !ok {
					v := refuse(RuleMCPDenied, f, "mcp.allow", "plugin %s: %s server %s (%s) is not allowed by mcp.allow (%s)", n, s.kind, s.name, safefs.Visible(cmpOr(s.commandLine, s.url)), listed(allow))
					if why != "" {
						v.Message += ": " + why
					}
					v.in = s.file
					out = append(out, v)
				}
			}
		}
		if ts := f.MCP.Transports; ts != nil {
			for _, pr := range problems {
				out = append(out, refuse(RuleMCPTransportDenied, f, "mcp.transports", "plugin %s: %s cannot be checked against mcp.transports", n, pr))
			}
			for _, s := range ss {
				if !slices.Contains(ts, s.transport) {
					v := refuse(RuleMCPTransportDenied, f, "mcp.transports", "plugin %s: %s server %s uses transport %s, not allowed by mcp.transports (%s)", n, s.kind, s.name, safefs.Visible(s.transport), listed(ts))
					v.in = s.file
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// admitted says whether the mcp.allow patterns admit the server, and if
// not, why: its quiver name matching one admits it whole (the team named
// that server); otherwise every program it makes an agent run (its
// command line, a headersHelper) and its URL must each match one, and its
// env may not set a variable that changes what a command line runs
// (PATH, NODE_OPTIONS, LD_PRELOAD, ...: "npx -y @acme/*" would then run
// the plugin's own npx). Never the plugin's own name for it alone.
func (s server) admitted(allow []string) (bool, string) {
	if slices.ContainsFunc(allow, func(pat string) bool { return MatchText(pat, s.name) }) {
		return true, ""
	}
	matchesOne := func(match func(pat string) bool) bool { return slices.ContainsFunc(allow, match) }
	switch {
	case s.commandLine == "" && s.url == "":
		return false, ""
	case s.commandLine != "" && !matchesOne(func(pat string) bool { return MatchText(pat, s.commandLine) }):
		return false, ""
	case s.commandLine != "" && !matchesOne(func(pat string) bool { return MatchCommandLine(pat, s.commandLine) }):
		return false, "a pattern's * would stand for the plugin's own folder or a package spec that names other code (file:, git+, an alias, a URL), which decides what runs; name the server itself (" + s.name + ") to allow it"
	case s.url != "" && !matchesOne(func(pat string) bool { return matchURL(pat, s.url) }):
		return false, ""
	case s.helper != "" && !matchesOne(func(pat string) bool { return MatchCommandLine(pat, s.helper) }):
		return false, fmt.Sprintf("its headersHelper %q runs a program no pattern names", safefs.Visible(s.helper))
	case len(s.loaders) > 0:
		return false, fmt.Sprintf("its env sets %s, which changes what its command line runs; name the server itself (%s) to allow it", strings.Join(s.loaders, ", "), s.name)
	}
	return true, ""
}

// matchURL is MatchText for a URL something will be sent to: never one
// with a user part, where what reads as the host is not one
// ("http://127.0.0.1:9000@evil.io/x" posts to evil.io, and
// "http://127.0.0.1:*" would admit it). The authority is read as
// written, variables (${PORT}) and all.
func matchURL(pat, raw string) bool {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		rest = raw
	}
	authority, _, _ := strings.Cut(rest, "/")
	if strings.ContainsAny(authority, "@\\") {
		return false
	}
	return MatchText(pat, raw)
}

// listed writes a list for a message; [] for an empty one.
func listed(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	return strings.Join(l, ", ")
}

// entryCandidate is a lock entry as a candidate. kind answers from the
// user's records, then ask (nil: no answer).
func (p *Policy) entryCandidate(s plugins.Scope, n plugins.Name, e plugins.LockEntry, ask RefAsker) plugins.Candidate {
	c := plugins.Candidate{Scope: s, Name: n, Market: e.Marketplace, Source: e.Source, Fetched: plugins.Redact(p.fetched(e.Source)),
		Path: e.Path, Ref: e.Ref, Link: e.Link, Local: filepath.IsAbs(e.Source)}
	c.Kind = p.kindOf(s, e.Source, e.Ref, ask)
	return c
}

// kindOf answers what ref of source is from the scope's records, else by
// asking (nil: no answer, an error).
func (p *Policy) kindOf(s plugins.Scope, source, ref string, ask RefAsker) func(context.Context) (plugins.RefKind, error) {
	return func(ctx context.Context) (plugins.RefKind, error) {
		if k, ok := plugins.RecordedRefKind(s, source, ref); ok {
			return k, nil
		}
		if ask == nil {
			return "", fmt.Errorf("not recorded on this machine")
		}
		_, k, err := ask.Latest(ctx, source, ref)
		return k, err
	}
}

// RefAsker says what a ref of a source is now (*plugins.Fetcher does, by
// listing the remote's refs).
type RefAsker interface {
	Latest(ctx context.Context, source, ref string) (commit string, kind plugins.RefKind, err error)
}

// found is what installedViolations found: violations, and refs that
// could not be checked.
type found struct {
	violations []violation
	unchecked  []violation
}

// installedViolations checks what scope s has installed now: each locked
// plugin (source, marketplace claim, pin, hooks, MCP servers), the
// scope's standalone hooks, and each locked marketplace (source, pin).
func (p *Policy) installedViolations(ctx context.Context, s plugins.Scope, ask RefAsker) (found, error) {
	var out found
	lock, err := plugins.ReadLock(s.LockPath())
	if err != nil {
		return out, err
	}
	add := func(key string, vs ...violation) {
		for _, v := range vs {
			v.key = key
			out.violations = append(out.violations, v)
		}
	}
	// The candidates first: judging their pins may ask the hosts, which
	// is done concurrently; what was found is added in order.
	names := lock.Names()
	markets := sortedKeys(lock.Marketplaces)
	cands := make([]plugins.Candidate, 0, len(names)+len(markets))
	for _, k := range names {
		n, _ := plugins.ParseName(k)
		cands = append(cands, p.entryCandidate(s, n, lock.Plugins[k], ask))
	}
	for _, name := range markets {
		e := lock.Marketplaces[name]
		c := plugins.Candidate{Scope: s, IsMarketplace: true, Market: name, Source: e.Source, Fetched: plugins.Redact(p.fetched(e.Source)),
			Ref: e.Ref, Local: filepath.IsAbs(e.Source)}
		c.Kind = p.kindOf(s, e.Source, e.Ref, ask)
		cands = append(cands, c)
	}
	type pinned struct {
		v   *violation
		err error
	}
	pins := make([]pinned, len(cands))
	jobs := 0
	if pa, ok := ask.(interface{ Parallel() int }); ok {
		jobs = pa.Parallel()
	}
	plugins.Concurrently(jobs, len(cands), func(i int) {
		pins[i].v, pins[i].err = p.pinViolation(ctx, cands[i])
	})
	pin := func(key string, i int) {
		switch v, err := pins[i].v, pins[i].err; {
		case v != nil:
			add(key, *v)
		case err != nil:
			out.unchecked = append(out.unchecked, violation{key: key, Refusal: &plugins.Refusal{ID: RuleRefUnchecked, File: p.pinner().Path, Rule: "require.pinned", Message: err.Error()}})
		}
	}
	for i, k := range names {
		n, _ := plugins.ParseName(k)
		add("plugins/"+k, p.pluginViolations(s, n, &cands[i])...)
		pin("plugins/"+k, i)
	}
	// A plugin folder the lock does not name (a repository may commit
	// one) is listed, wired and run like the others.
	entries, _ := os.ReadDir(s.PluginsDir())
	for _, de := range entries {
		n, err := plugins.ParseName(de.Name())
		if err != nil || n.Dir() != de.Name() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		if _, ok := lock.Plugins[n.String()]; ok {
			continue
		}
		add("plugins/"+n.String(), p.pluginViolations(s, n, nil)...)
	}
	if p.partRules() {
		// The scope's own hooks (.quiver/hooks), which no lock entry names.
		add("", p.hookViolations("the hooks of "+s.Root, s.Root)...)
	}
	for j, name := range markets {
		i := len(names) + j
		add("marketplaces/"+name, p.sourceViolations(cands[i])...)
		pin("marketplaces/"+name, i)
	}
	return out, nil
}

// pluginViolations checks installed plugin n of scope s: the source of its
// lock entry c (nil for a folder the lock does not name, whose source,
// unknown, passes no sources.allow) and the parts of the folder agents
// read, through the link of a --link install: never the lock's word for
// where that leads (a repository may commit both, pointing at different
// folders).
func (p *Policy) pluginViolations(s plugins.Scope, n plugins.Name, c *plugins.Candidate) []violation {
	var out []violation
	if c != nil {
		out = p.sourceViolations(*c)
	} else {
		for _, f := range p.Files {
			if allow := f.Sources.Allow; allow != nil {
				out = append(out, refuse(RuleSourceDenied, f, "sources.allow",
					"plugin %s is not in quiver.lock: its source is unknown, and sources.allow (%s) admits only what it names", n, listed(allow)))
			}
		}
	}
	if _, err := os.Lstat(s.PluginDir(n)); err == nil {
		out = append(out, p.partViolations(n, s.PluginDir(n))...)
	}
	return out
}

// CheckPlugin checks installed plugin n of scope s as CheckInstalled
// checks each (its source, marketplace claim, pin as far as a full SHA or
// the user's records tell, hooks and MCP servers), at the moment
// something of it is about to start (quiver mcp exec, lsp exec): a policy
// that changed since the plugin was wired is obeyed there too. It returns
// the first refusal.
func (p *Policy) CheckPlugin(s plugins.Scope, n plugins.Name) error {
	if p == nil {
		return nil
	}
	if err := p.Err(); err != nil {
		return err
	}
	lock, err := plugins.ReadLock(s.LockPath())
	if err != nil {
		return err
	}
	var c *plugins.Candidate
	if e, ok := lock.Plugins[n.String()]; ok {
		one := p.entryCandidate(s, n, e, nil)
		c = &one
		// A pin the records cannot tell is not refused here, as in
		// CheckInstalled: it was judged when it was installed.
		if v, _ := p.pinViolation(context.Background(), one); v != nil {
			return v.Refusal
		}
	}
	if vs := p.pluginViolations(s, n, c); len(vs) > 0 {
		return vs[0].Refusal
	}
	return nil
}

// CheckInstalled checks what scope s has installed now, as the agents'
// wiring (agent install and sync) and `quiver trust` do before they write
// anything: every locked plugin's source, marketplace claim, pin (as far
// as a full SHA or the user's records tell, without asking a remote),
// hooks and MCP servers, and every locked marketplace. It returns the
// first refusal.
func (p *Policy) CheckInstalled(s plugins.Scope) error {
	if p == nil {
		return nil
	}
	if err := p.Err(); err != nil {
		return err
	}
	f, err := p.installedViolations(context.Background(), s, nil)
	if err != nil {
		return err
	}
	if len(f.violations) > 0 {
		return f.violations[0].Refusal
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
