package agents

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Claude Code 2.1.328 validates each of its settings files (the user's,
// the project's, the personal one) against its own schema and skips the
// whole file when one key fails it, quiver's hooks included: a committed
// .claude/settings.json with "cleanupPeriodDays": "abc" switches every
// quiver guard off while the file parses as JSON (the re-attack of issue
// 42, F3). claudesettings.json describes that schema, key by key, as the
// schema objects of that build do (generated from them and checked
// against the real agent: docs/agents.md); quiver refuses to call such a
// file wired, and says which key Claude rejects.

//go:embed claudesettings.json
var claudeSettingsJSON []byte

// claudeSchema is the table, read at first use.
var claudeSchema = lazy.Value[map[string]any]{New: func() map[string]any {
	var t map[string]any
	json.Unmarshal(claudeSettingsJSON, &t)
	return t
}}

// claudeSettingsProblem says why Claude Code would skip the settings
// document data ("" when it would read it): a top level that is not an
// object, a known key whose value its schema rejects, hooks that are not
// an object of events or whose PreToolUse or PermissionRequest handlers
// it cannot load (the guards Claude refuses to run without), an
// extraKnownMarketplaces source of an unknown kind. Keys it does not know,
// and those it drops one by one when wrong, pass.
func claudeSettingsProblem(data []byte) string {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return "" // not JSON: said by the file's reader
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return "the file is not a JSON object"
	}
	table := claudeSchema.Get()
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range top {
			if !yield(k) {
				return
			}
		}
	}) {
		v := top[k]
		d, known := table[k].(map[string]any)
		if !known || d["managedOnly"] == true || v == nil && d["nullOk"] == true {
			continue
		}
		if !schemaAccepts(d, v) {
			return fmt.Sprintf("%q holds a value Claude Code's settings schema rejects", k)
		}
	}
	if h, ok := top["hooks"]; ok && h != nil {
		events, ok := h.(map[string]any)
		if !ok {
			return `"hooks" is not an object of events`
		}
		for _, ev := range []string{"PreToolUse", "PermissionRequest"} {
			if p := guardGroupsProblem(events[ev]); p != "" {
				return fmt.Sprintf("a %s group %s, which Claude Code cannot load for a guard", ev, p)
			}
		}
	}
	for _, key := range []string{"extraKnownMarketplaces", "additionalMarketplaces"} {
		ms, _ := top[key].(map[string]any)
		for name, m := range ms {
			mm, _ := m.(map[string]any)
			src, _ := mm["source"].(map[string]any)
			if kind, ok := src["source"].(string); ok && !slices.Contains([]string{"github", "git", "url", "npm", "file", "directory", "settings", "hostPattern", "pathPattern", "git-subdir"}, kind) {
				return fmt.Sprintf("%s.%s has a source of kind %q, which Claude Code does not know", key, name, kind)
			}
		}
	}
	return ""
}

// schemaAccepts reports whether the descriptor d accepts v, as zod's
// schema it was made from does.
func schemaAccepts(d map[string]any, v any) bool {
	if d == nil || d["catch"] == true || v == nil && d["nullable"] == true {
		return true
	}
	t, _ := d["type"].(string)
	switch t {
	case "", "any":
		return true
	case "union":
		alts, _ := d["anyOf"].([]any)
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && schemaAccepts(am, v) {
				return true
			}
		}
		return len(alts) == 0
	}
	if enum, ok := d["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return sameJSON(e, v) }) {
		return false
	}
	num := func(key string) (float64, bool) { f, ok := d[key].(float64); return f, ok }
	switch t {
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if n, ok := num("minLength"); ok && float64(len([]rune(s))) < n {
			return false
		}
		if n, ok := num("maxLength"); ok && float64(len([]rune(s))) > n {
			return false
		}
		if p, ok := d["pattern"].(string); ok {
			// A JavaScript pattern RE2 cannot take passes.
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(s) {
				return false
			}
		}
		if p, ok := d["startsWith"].(string); ok && !strings.HasPrefix(s, p) {
			return false
		}
		return true
	case "number", "integer":
		f, ok := v.(float64)
		if !ok || t == "integer" && f != math.Trunc(f) {
			return false
		}
		if n, ok := num("min"); ok && f < n {
			return false
		}
		if n, ok := num("max"); ok && f > n {
			return false
		}
		if n, ok := num("exclusiveMin"); ok && f <= n {
			return false
		}
		if n, ok := num("exclusiveMax"); ok && f >= n {
			return false
		}
		return true
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "undefined":
		return false
	case "array":
		list, ok := v.([]any)
		if !ok {
			return false
		}
		if n, ok := num("minItems"); ok && float64(len(list)) < n {
			return false
		}
		if n, ok := num("maxItems"); ok && float64(len(list)) > n {
			return false
		}
		items, _ := d["items"].(map[string]any)
		for _, x := range list {
			if !schemaAccepts(items, x) {
				return false
			}
		}
		return true
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if d["properties"] == "any" {
			return true
		}
		props, _ := d["properties"].(map[string]any)
		required, _ := d["required"].([]any)
		for _, r := range required {
			if name, _ := r.(string); name != "" {
				if _, ok := obj[name]; !ok {
					return false
				}
			}
		}
		additional, hasAdditional := d["additional"].(map[string]any)
		if d["additional"] == "any" {
			hasAdditional = true
		}
		keys, _ := d["keys"].([]any)
		for k, x := range obj {
			if keys != nil && !slices.ContainsFunc(keys, func(e any) bool { return e == k }) {
				return false
			}
			if p, ok := props[k].(map[string]any); ok {
				// optional() takes an absent key, not a null one.
				if x == nil && p["type"] != "null" && p["nullable"] != true && p["catch"] != true && p["type"] != "any" {
					return false
				}
				if !schemaAccepts(p, x) {
					return false
				}
				continue
			}
			switch {
			case hasAdditional:
				if !schemaAccepts(additional, x) {
					return false
				}
			case d["strict"] == true:
				return false
			}
		}
		return true
	}
	return true
}

// sameJSON reports whether two decoded JSON values are equal (an enum's
// members are strings, numbers and booleans).
func sameJSON(a, b any) bool { return a == b }

// guardGroupsProblem says what of the matcher groups v of a guard event
// (PreToolUse, PermissionRequest) Claude Code 2.1.328 cannot load ("" for
// nothing): it refuses to run without a guard it cannot load, and skips
// the whole settings file (measured: a handler without its command, a
// command that is not a string, an http handler without its url, a
// timeout that is not a number, an unknown onFailure, a matcher that is
// not a string, hooks that are not a list).
func guardGroupsProblem(v any) string {
	if v == nil {
		return ""
	}
	groups, ok := v.([]any)
	if !ok {
		return "list that is not one"
	}
	str := func(m map[string]any, k string, required bool) bool {
		x, ok := m[k]
		if !ok {
			return !required
		}
		s, isStr := x.(string)
		return isStr && (!required || s != "")
	}
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok {
			return "that is not an object"
		}
		if !str(gm, "matcher", false) {
			return "whose matcher is not a string"
		}
		hs, ok := gm["hooks"].([]any)
		if !ok {
			return "whose hooks are not a list"
		}
		for _, h := range hs {
			hm, ok := h.(map[string]any)
			if !ok {
				return "with a handler that is not an object"
			}
			t, _ := hm["type"].(string)
			switch {
			case t == "command":
				if _, exec := hm["args"]; !str(hm, "command", true) {
					return "with a command handler without its command"
				} else if exec {
					if args, ok := hm["args"].([]any); !ok || slices.ContainsFunc(args, func(a any) bool { _, s := a.(string); return !s }) {
						return "with a command handler whose args are not strings"
					}
				}
			case t == "http":
				if !str(hm, "url", true) {
					return "with an http handler without its url"
				}
			case t == "prompt" || t == "agent":
				if !str(hm, "prompt", true) {
					return "with a " + t + " handler without its prompt"
				}
			case format.NativeType(t):
			default:
				return fmt.Sprintf("with a handler of type %q", t)
			}
			if x, ok := hm["timeout"]; ok {
				if f, isNum := x.(float64); !isNum || f <= 0 {
					return "with a timeout that is not a positive number"
				}
			}
			if x, ok := hm["onFailure"]; ok && x != "continue" && x != "block" {
				return "with an onFailure that is neither continue nor block"
			}
			for _, k := range []string{"async", "asyncRewake", "once"} {
				if x, ok := hm[k]; ok {
					if _, isBool := x.(bool); !isBool {
						return "with " + k + " that is not true or false"
					}
				}
			}
			for _, k := range []string{"if", "statusMessage", "shell"} {
				if !str(hm, k, false) {
					return "with " + k + " that is not a string"
				}
			}
		}
	}
	return ""
}
