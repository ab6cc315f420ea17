package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// Level says which of the three policy files a file is; each may only
// tighten the ones before it.
type Level int

// The levels, in the order they apply.
const (
	Machine Level = iota
	User
	Project
)

func (l Level) String() string {
	switch l {
	case Machine:
		return "machine"
	case User:
		return "user"
	}
	return "project"
}

// File is one policy file as read. A list that is nil says nothing (the
// key is missing or null); an empty list allows nothing; a list allows
// only what it names (tri-state, as in microsoft/apm's policy).
type File struct {
	Path  string
	Level Level
	// Sources and Marketplaces hold patterns over normalised sources
	// (Match): Sources for plugins, with marketplace:SOURCE for an
	// entry's origin; Marketplaces for the marketplaces added.
	Sources, Marketplaces Lists
	Require               Require
	Hooks                 Hooks
	MCP                   MCP
	// HiddenUnicode is scan.hidden_unicode: block, warn, off, or "" when
	// the file does not say.
	HiddenUnicode string
	// Warnings name what quiver ignored: fields it does not know, values
	// it cannot match.
	Warnings []string
	// Err is set when the file could not be read or does not parse: then
	// the policy refuses everything until it is fixed (fail closed).
	Err error
}

// Lists is an allow list and a deny list.
type Lists struct {
	Allow, Deny []string
}

// Require holds the require section: pinned refs, a frozen lock.
type Require struct {
	Pinned, Lock bool
}

// Hooks holds the hooks section: the Claude handler types allowed, and
// the URLs http handlers may post to.
type Hooks struct {
	HandlerTypes, HTTPURLs []string
}

// MCP holds the mcp section: the servers allowed (by quiver name,
// command line or URL) and their transports.
type MCP struct {
	Allow, Transports []string
}

// Scan levels of scan.hidden_unicode, from the strictest.
const (
	Block = "block"
	Warn  = "warn"
	Off   = "off"
)

// Known values, for the warnings about values that can never match.
var (
	handlerTypes = []string{"command", "http", "prompt", "agent", "mcp_tool"}
	transports   = []string{"stdio", "http", "sse", "ws"}
)

// maxPatterns bounds a list; maxPattern a pattern's length.
const (
	maxPatterns = 1024
	maxPattern  = 1024
)

// Parse reads a policy file's content; path names it in messages. A
// field quiver does not know is a warning (in File.Warnings), a value of
// the wrong type an error: a policy that does not parse must fail closed,
// never be read as less than it says.
func Parse(data []byte, path string, level Level) (*File, error) {
	f := &File{Path: path, Level: level}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil // an empty file says nothing
		}
		return nil, err
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, errors.New("holds more than one YAML document")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return f, nil
	}
	p := parser{f: f}
	err := p.mapping(root, "", map[string]func(*yaml.Node, string) error{
		"version": func(n *yaml.Node, key string) error {
			var v int
			if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil || v != 1 {
				return at(n, "%s must be 1, the policy format this quiver reads", key)
			}
			return nil
		},
		"sources":      p.lists(&f.Sources, normalPattern),
		"marketplaces": p.lists(&f.Marketplaces, normalPattern),
		"require": func(n *yaml.Node, key string) error {
			return p.mapping(n, key, map[string]func(*yaml.Node, string) error{
				"pinned": boolean(&f.Require.Pinned),
				"lock":   boolean(&f.Require.Lock),
			})
		},
		"hooks": func(n *yaml.Node, key string) error {
			return p.mapping(n, key, map[string]func(*yaml.Node, string) error{
				"handler_types": p.list(&f.Hooks.HandlerTypes, p.known(handlerTypes)),
				"http_urls":     p.list(&f.Hooks.HTTPURLs, textPattern),
			})
		},
		"mcp": func(n *yaml.Node, key string) error {
			return p.mapping(n, key, map[string]func(*yaml.Node, string) error{
				"allow":      p.list(&f.MCP.Allow, textPattern),
				"transports": p.list(&f.MCP.Transports, p.known(transports)),
			})
		},
		"scan": func(n *yaml.Node, key string) error {
			return p.mapping(n, key, map[string]func(*yaml.Node, string) error{
				"hidden_unicode": func(n *yaml.Node, key string) error {
					if isNull(n) {
						return nil
					}
					if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
						return at(n, "%s must be block, warn or off", key)
					}
					switch v := strings.ToLower(n.Value); v {
					case Block, Warn, Off:
						f.HiddenUnicode = v
						return nil
					}
					return at(n, "%s must be block, warn or off, not %q", key, n.Value)
				},
			})
		},
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct{ f *File }

// at is an error about node n, with its line.
func at(n *yaml.Node, format string, a ...any) error {
	return fmt.Errorf("line %d: %s", n.Line, fmt.Sprintf(format, a...))
}

func (p *parser) warn(n *yaml.Node, format string, a ...any) {
	p.f.Warnings = append(p.f.Warnings, fmt.Sprintf("%s: line %d: %s", p.f.Path, n.Line, fmt.Sprintf(format, a...)))
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// mapping reads the mapping n (at key, "" for the top), each known field
// by its reader; a null is an empty mapping.
func (p *parser) mapping(n *yaml.Node, key string, fields map[string]func(*yaml.Node, string) error) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		if key == "" {
			return at(n, "a policy must be a mapping of sections (version, sources, marketplaces, require, hooks, mcp, scan)")
		}
		return at(n, "%s must be a mapping", key)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return at(k, "a key of %s is not a name", cmpOr(key, "the policy"))
		}
		full := k.Value
		if key != "" {
			full = key + "." + k.Value
		}
		if k.Tag == "!!merge" {
			// Read as an unknown field, the merged rules would be
			// dropped: a policy read as less than it says.
			return at(k, "%s: a merge key (<<) is not read; write the rules out", cmpOr(key, "the policy"))
		}
		if seen[k.Value] {
			return at(k, "%s is given twice", full)
		}
		seen[k.Value] = true
		read, ok := fields[k.Value]
		if !ok {
			p.warn(k, "unknown field %s (ignored)", visible(full))
			continue
		}
		if err := read(v, full); err != nil {
			return err
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func boolean(dst *bool) func(*yaml.Node, string) error {
	return func(n *yaml.Node, key string) error {
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return at(n, "%s must be true or false", key)
		}
		return n.Decode(dst)
	}
}

// lists reads a section of allow and deny lists, each pattern through
// norm.
func (p *parser) lists(dst *Lists, norm func(string) (string, error)) func(*yaml.Node, string) error {
	return func(n *yaml.Node, key string) error {
		return p.mapping(n, key, map[string]func(*yaml.Node, string) error{
			"allow": p.list(&dst.Allow, norm),
			"deny":  p.list(&dst.Deny, norm),
		})
	}
}

// list reads a list of strings: null (or missing) leaves dst nil, []
// makes it empty and non-nil. Each value goes through norm.
func (p *parser) list(dst *[]string, norm func(string) (string, error)) func(*yaml.Node, string) error {
	return func(n *yaml.Node, key string) error {
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return at(n, "%s must be a list of strings", key)
		}
		if len(n.Content) > maxPatterns {
			return at(n, "%s has more than %d entries", key, maxPatterns)
		}
		out := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
				return at(e, "%s must be a list of strings", key)
			}
			v, err := norm(e.Value)
			if err != nil {
				return at(e, "%s: %v", key, err)
			}
			if v == "" {
				p.warn(e, "%s: %q can never match (ignored)", key, e.Value)
				continue
			}
			out = append(out, v)
		}
		*dst = out
		return nil
	}
}

// known accepts the values of a closed set, warning of others (they
// match nothing).
func (p *parser) known(values []string) func(string) (string, error) {
	return func(v string) (string, error) {
		if err := checkText(v); err != nil {
			return "", err
		}
		v = strings.ToLower(strings.TrimSpace(v))
		for _, k := range values {
			if v == k {
				return v, nil
			}
		}
		return "", nil
	}
}

// checkText refuses a pattern that is empty, too long, or holds a control
// or invisible character: a policy is read by reviewers too.
func checkText(v string) error {
	switch {
	case v == "":
		return errors.New("an empty pattern")
	case len(v) > maxPattern:
		return fmt.Errorf("a pattern longer than %d bytes", maxPattern)
	case strings.ContainsFunc(v, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }):
		return fmt.Errorf("%q holds a control or invisible character", visible(v))
	}
	return nil
}

// textPattern is a pattern in which * is any text (hooks.http_urls,
// mcp.allow), kept as written.
func textPattern(v string) (string, error) {
	if err := checkText(v); err != nil {
		return "", err
	}
	return v, nil
}

// normalPattern is a source pattern in the normalised form sources take
// (NormalSource): lowercase, scheme, credentials and a trailing / or
// .git dropped, so that https://github.com/Acme/X.git and github.com/acme/x
// are one pattern. marketplace:SOURCE is normalised after its prefix.
func normalPattern(v string) (string, error) {
	if err := checkText(v); err != nil {
		return "", err
	}
	if strings.ContainsAny(v, " \t") {
		return "", fmt.Errorf("%q holds white space", v)
	}
	v = strings.ToLower(v)
	if rest, ok := strings.CutPrefix(v, marketplacePrefix); ok {
		return marketplacePrefix + normalSourcePattern(rest), nil
	}
	return normalSourcePattern(v), nil
}

// visible escapes what a terminal would hide.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
