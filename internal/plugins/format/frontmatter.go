package format

import (
	"bytes"
	"fmt"
	"math"

	"gopkg.in/yaml.v3"
)

// ParseFrontmatter splits a Markdown file into its YAML frontmatter (between
// a first line "---" and the next "---" line) and the body. A file without
// frontmatter has a nil map and its whole content as body. YAML that does
// not parse, or is not a mapping, is an error; the body is still returned.
func ParseFrontmatter(data []byte) (map[string]any, string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // BOM
	// After "---" Claude Code's expression (/^---\s*\n/) takes any of
	// JavaScript's white space (jsSpace): "---" and a no-break space, \v,
	// U+2028 or U+FEFF opens frontmatter for Claude, so it does here too,
	// where the keys Claude will read (hooks, mcpServers) are judged.
	first, rest, ok := cutLine(data)
	if !ok || string(bytes.TrimRightFunc(first, jsSpace)) != "---" {
		return nil, string(data), nil
	}
	var yamlPart []byte
	for off := 0; ; {
		line, after, more := cutLine(rest[off:])
		if string(bytes.TrimRightFunc(line, jsSpace)) == "---" {
			yamlPart = rest[:off]
			rest = after
			break
		}
		if !more {
			return nil, string(data), fmt.Errorf("frontmatter: no closing --- line")
		}
		off += len(line) + 1
	}
	fm := map[string]any{}
	if err := yaml.Unmarshal(yamlPart, &fm); err != nil {
		return nil, string(rest), fmt.Errorf("frontmatter: %w", err)
	}
	for k, v := range fm {
		fm[k] = jsonSafe(v)
	}
	return fm, string(rest), nil
}

// jsonSafe rewrites what YAML can express but JSON cannot, so that show
// --json never fails on a file that parsed: mappings with non-string keys
// (1: one, true: yes, ~: x) get their keys as strings, and .inf and .nan
// become the strings "+Inf", "-Inf" and "NaN".
func jsonSafe(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonSafe(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonSafe(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonSafe(e)
		}
		return t
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return fmt.Sprint(t)
		}
	}
	return v
}

// cutLine splits at the first newline; more is false when there is none.
func cutLine(b []byte) (line, rest []byte, more bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

// StringField returns a frontmatter string value, "" when absent or not a
// string.
func StringField(fm map[string]any, key string) string {
	s, _ := fm[key].(string)
	return s
}
