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
			groups, _ := events[ev].([]any)
			for _, g := range groups {
				gm, _ := g.(map[string]any)
				hs, _ := gm["hooks"].([]any)
				for _, h := range hs {
					hm, _ := h.(map[string]any)
					t, _ := hm["type"].(string)
					if t != "command" && t != "http" && !format.NativeType(t) {
						return fmt.Sprintf("a %s handler of type %q, which Claude Code cannot load for a guard", ev, t)
					}
				}
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
