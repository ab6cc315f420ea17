// Package discovery answers "what hooks, skills and recipes are there, and
// which one wins?". It scans the four sources in precedence order (local
// standalone, local plugins, global standalone, global plugins), prefixes
// plugin items with their plugin's name, resolves shadowing, learns each
// hook's event from a cache (asking the hook only when it changed), reads
// frontmatter, and applies project trust: untrusted project hooks are never
// executed, not even to ask their event.
//
// It builds on package plugins (what is installed where) and is used by
// package hooks (which runs the resolved set). It never prints.
package discovery
