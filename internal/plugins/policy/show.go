package policy

import (
	"fmt"
	"strings"
)

// Rule is one rule of the effective policy as `quiver policy show` prints
// it: its key, its value (a list, true, or a level) and the file it came
// from. Each file's allow list is a rule of its own (a source must match
// every one), each deny list too (any one refuses).
type Rule struct {
	Rule  string `json:"rule"`
	Value any    `json:"value"`
	From  string `json:"from"`
}

// RuleHeader heads the table of rules (Rule.Row).
var RuleHeader = []string{"RULE", "VALUE", "FROM"}

// Row is r in the table of rules: a list as [a, b].
func (r Rule) Row() []string {
	v := fmt.Sprint(r.Value)
	if l, ok := r.Value.([]string); ok {
		v = "[" + strings.Join(l, ", ") + "]"
	}
	return []string{r.Rule, v, r.From}
}

// DefaultFrom is Rule.From for quiver's own default, which no file set.
const DefaultFrom = "quiver's default"

// Rules lists the effective policy's rules in the order they apply:
// every list of every file that says something, the booleans that are
// true (from the first file that says so) and scan.hidden_unicode as the
// files and quiver's default settle it.
func (p *Policy) Rules() []Rule {
	out := []Rule{}
	list := func(key string, v []string, from string) {
		if v != nil {
			out = append(out, Rule{Rule: key, Value: v, From: from})
		}
	}
	for _, f := range p.Files {
		if f.Err != nil {
			continue
		}
		list("sources.allow", f.Sources.Allow, f.Path)
		list("sources.deny", f.Sources.Deny, f.Path)
		list("marketplaces.allow", f.Marketplaces.Allow, f.Path)
		list("marketplaces.deny", f.Marketplaces.Deny, f.Path)
	}
	for _, b := range []struct {
		key string
		set func(*File) bool
	}{
		{"require.pinned", func(f *File) bool { return f.Require.Pinned }},
		{"require.lock", func(f *File) bool { return f.Require.Lock }},
	} {
		for _, f := range p.Files {
			if f.Err == nil && b.set(f) {
				out = append(out, Rule{Rule: b.key, Value: true, From: f.Path})
				break
			}
		}
	}
	for _, f := range p.Files {
		if f.Err != nil {
			continue
		}
		list("hooks.handler_types", f.Hooks.HandlerTypes, f.Path)
		list("hooks.http_urls", f.Hooks.HTTPURLs, f.Path)
		list("mcp.allow", f.MCP.Allow, f.Path)
		list("mcp.transports", f.MCP.Transports, f.Path)
	}
	level, from := p.HiddenUnicode()
	out = append(out, Rule{Rule: "scan.hidden_unicode", Value: level, From: cmpOr(from, DefaultFrom)})
	return out
}

// FileInfo is one policy file as `quiver policy show --json` lists it.
type FileInfo struct {
	Path     string   `json:"path"`
	Level    string   `json:"level"`
	Error    string   `json:"error,omitempty"`
	Warnings []string `json:"warnings"`
}

// Report is the effective policy as `quiver policy show --json` prints
// it: the files read, in order, and the rules; its lists are never nil.
type Report struct {
	Files []FileInfo `json:"files"`
	Rules []Rule     `json:"rules"`
}

// Report is p as `quiver policy show --json` prints it.
func (p *Policy) Report() Report {
	r := Report{Files: []FileInfo{}, Rules: p.Rules()}
	for _, f := range p.Files {
		fi := FileInfo{Path: f.Path, Level: f.Level.String(), Warnings: append([]string{}, f.Warnings...)}
		if f.Err != nil {
			fi.Error = f.Err.Error()
		}
		r.Files = append(r.Files, fi)
	}
	return r
}
