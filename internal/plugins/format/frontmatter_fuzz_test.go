package format

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// billionLaughs is the YAML alias bomb: nine levels of nine aliases each,
// about 387 million strings once expanded.
const billionLaughs = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

const bom = "\xef\xbb\xbf"

var longLine = strings.Repeat("x", 64<<10)

// frontmatterShapes are SKILL.md and recipe shapes met in the wild, and the
// ways they go wrong, with what ParseFrontmatter makes of each. wantErr is
// a substring of the error, "" for none.
var frontmatterShapes = []struct {
	name     string
	in       string
	wantFM   map[string]any // nil: no map
	wantBody string
	wantErr  string
}{
	{"empty file", "", nil, "", ""},
	{"no frontmatter", "# PDF\n\nUse it.\n", nil, "# PDF\n\nUse it.\n", ""},
	{"dashes without newline", "---", nil, "---", ""},
	{"dashes not on the first line", "\n---\nname: x\n---\nbody", nil, "\n---\nname: x\n---\nbody", ""},
	{"four dashes", "----\nname: x\n----\nbody", nil, "----\nname: x\n----\nbody", ""},
	{"indented dashes", " ---\nname: x\n---\n", nil, " ---\nname: x\n---\n", ""},
	{"skill",
		"---\nname: pdf\ndescription: Extract text and tables from PDF files.\n---\n# PDF\n",
		map[string]any{"name": "pdf", "description": "Extract text and tables from PDF files."}, "# PDF\n", ""},
	{"block scalar strip",
		"---\nname: pdf\ndescription: |-\n  Extract text.\n  Use when asked.\nlicense: MIT\n---\n# PDF\n",
		map[string]any{"name": "pdf", "description": "Extract text.\nUse when asked.", "license": "MIT"}, "# PDF\n", ""},
	{"block scalar keep",
		"---\ndescription: |\n  line\n\n---\nbody",
		map[string]any{"description": "line\n"}, "body", ""},
	{"folded scalar",
		"---\ndescription: >\n  one\n  two\n---\n",
		map[string]any{"description": "one two\n"}, "", ""},
	{"a --- line closes even inside a block scalar",
		"---\ndescription: |\n  a\n---\n  b\n---\n",
		map[string]any{"description": "a\n"}, "  b\n---\n", ""},
	{"quoted strings",
		"---\nname: \"pdf: tools\"\ndescription: 'it''s \"fine\"'\nx: \"tab\\there\\u00e9\"\n---\nbody\n",
		map[string]any{"name": "pdf: tools", "description": `it's "fine"`, "x": "tab\there\u00e9"}, "body\n", ""},
	{"typed values",
		"---\nversion: 1.0\nn: 3\nok: true\nnone: ~\ntags: [a, b]\nmeta: {k: v}\n---\n",
		map[string]any{"version": 1.0, "n": 3, "ok": true, "none": nil, "tags": []any{"a", "b"}, "meta": map[string]any{"k": "v"}}, "", ""},
	{"CRLF",
		"---\r\nname: x\r\ndescription: |-\r\n  a\r\n  b\r\n---\r\nbody\r\nmore\r\n",
		map[string]any{"name": "x", "description": "a\nb"}, "body\r\nmore\r\n", ""},
	{"trailing blanks on the dash lines",
		"--- \t\nname: x\n---  \r\nbody",
		map[string]any{"name": "x"}, "body", ""},
	{"BOM", bom + "---\nname: x\n---\nbody", map[string]any{"name": "x"}, "body", ""},
	{"BOM without frontmatter", bom + "hello\n", nil, "hello\n", ""},
	{"two BOMs", bom + bom + "---\nname: x\n---\n", nil, bom + "---\nname: x\n---\n", ""},
	{"empty frontmatter", "---\n---\n", map[string]any{}, "", ""},
	{"empty frontmatter and body", "---\n---\nbody\n", map[string]any{}, "body\n", ""},
	{"comment only", "---\n# nothing\n---\nbody", map[string]any{}, "body", ""},
	{"closing line at EOF", "---\nname: x\n---", map[string]any{"name": "x"}, "", ""},
	// A null document decodes to a nil map: indistinguishable from no
	// frontmatter, but the body still starts after the closing line.
	{"null frontmatter", "---\n~\n---\nbody", nil, "body", ""},
	{"no closing line", "---\nname: x\ndescription: y\n", nil, "---\nname: x\ndescription: y\n", "no closing --- line"},
	{"only an opening line", "---\n", nil, "---\n", "no closing --- line"},
	{"no closing line with BOM", bom + "---\nname: x", nil, "---\nname: x", "no closing --- line"},
	{"YAML list", "---\n- a\n- b\n---\nbody", nil, "body", "cannot unmarshal !!seq"},
	{"flow list", "---\n[name: x]\n---\nbody", nil, "body", "cannot unmarshal !!seq"},
	{"scalar", "---\njust some text\n---\nbody", nil, "body", "cannot unmarshal !!str"},
	{"anchors and aliases",
		"---\nbase: &b {tools: [read]}\nskill: *b\n---\n",
		map[string]any{"base": map[string]any{"tools": []any{"read"}}, "skill": map[string]any{"tools": []any{"read"}}}, "", ""},
	{"merge key", "---\nbase: &b {a: 1}\nx:\n  <<: *b\n  c: 2\n---\n",
		map[string]any{"base": map[string]any{"a": 1}, "x": map[string]any{"a": 1, "c": 2}}, "", ""},
	{"unknown alias", "---\na: *nope\n---\nbody", nil, "body", "unknown anchor 'nope'"},
	{"billion laughs", "---\n" + billionLaughs + "---\nbody", nil, "body", "excessive aliasing"},
	{"deep nesting", "---\nx: " + strings.Repeat("[", 20000) + "\n---\nbody", nil, "body", "exceeded max depth"},
	{"duplicate key", "---\na: 1\na: 2\n---\n", nil, "", `mapping key "a" already defined`},
	{"very long line",
		"---\ndescription: " + longLine + "\n---\n" + longLine,
		map[string]any{"description": longLine}, longLine, ""},
	{"very long line without frontmatter", longLine, nil, longLine, ""},
	{"tab indentation", "---\n\tname: x\n---\nbody", nil, "body", "found character that cannot start any token"},
	{"tab after the colon", "---\nname:\tx\n---\n", map[string]any{"name": "x"}, "", ""},
	{"NUL in frontmatter", "---\nname: a\x00b\n---\nbody", nil, "body", "control characters are not allowed"},
	{"NUL in body", "---\nname: x\n---\nb\x00dy", map[string]any{"name": "x"}, "b\x00dy", ""},
	{"NUL without frontmatter", "\x00---\n", nil, "\x00---\n", ""},
	{"invalid UTF-8 in frontmatter", "---\nname: \xff\n---\n", nil, "", "invalid"},
	// yaml.v3 decodes only the first document: what follows "..." is
	// silently dropped.
	{"document end marker", "---\na: 1\n...\nb: 2\n---\nbody", map[string]any{"a": 1}, "body", ""},
	{"document start with content", "---\na: 1\n--- b: 2\n---\n", nil, "", "mapping values are not allowed"},
}

func TestParseFrontmatterShapes(t *testing.T) {
	for _, tc := range frontmatterShapes {
		t.Run(tc.name, func(t *testing.T) {
			fm, body, err := ParseFrontmatter([]byte(tc.in))
			if tc.wantErr == "" && err != nil {
				t.Fatalf("error %v, want none", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "frontmatter: ") {
				t.Errorf("error %q does not start with %q", err, "frontmatter: ")
			}
			if (fm == nil) != (tc.wantFM == nil) || !reflect.DeepEqual(fm, tc.wantFM) {
				t.Errorf("frontmatter = %#v, want %#v", fm, tc.wantFM)
			}
			if body != tc.wantBody {
				t.Errorf("body = %.80q, want %.80q", body, tc.wantBody)
			}
		})
	}
}

// TestParseFrontmatterJSON: `skill show --json` and `recipe show --json`
// print the frontmatter as a JSON object (SPEC §10), so every map that
// parses without an error should encode.
func TestParseFrontmatterJSON(t *testing.T) {
	for _, in := range []string{
		"---\nmetadata:\n  1: one\n---\n",
		"---\nmetadata: {true: yes}\n---\n",
		"---\nmetadata: {~: x}\n---\n",
		"---\nlist: [{2: b}]\n---\n",
		"---\nlimit: .inf\n---\n",
		"---\nratio: .nan\n---\n",
	} {
		fm, _, err := ParseFrontmatter([]byte(in))
		if err != nil {
			continue // invalid is a fine answer too
		}
		if _, err := json.Marshal(fm); err != nil {
			t.Errorf("%q: frontmatter %#v does not encode: %v", in, fm, err)
		}
	}
}

func FuzzParseFrontmatter(f *testing.F) {
	// The big shapes (deep nesting, 64 KiB lines) stay in the table test: as
	// seeds they would slow every mutation down a hundredfold.
	for _, tc := range frontmatterShapes {
		if len(tc.in) <= 1<<10 {
			f.Add([]byte(tc.in))
		}
	}
	f.Add([]byte("---\ndescription: " + longLine[:1000] + "\n---\n" + longLine[:1000]))
	f.Add([]byte("---\nx: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n---\n"))
	f.Add([]byte("---\nx: " + strings.Repeat("{a: ", 100) + "b" + strings.Repeat("}", 100) + "\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := append([]byte(nil), data...)
		fm, body, err := ParseFrontmatter(data)
		if !bytes.Equal(in, data) {
			t.Fatalf("ParseFrontmatter modified its input")
		}
		text := string(bytes.TrimPrefix(data, []byte(bom)))
		if !strings.HasSuffix(text, body) {
			t.Fatalf("body %.80q is not a suffix of the input %.80q", body, text)
		}
		if err != nil && fm != nil {
			t.Fatalf("error %v with a frontmatter %v", err, fm)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "frontmatter: ") {
			t.Fatalf("error %q does not start with %q", err, "frontmatter: ")
		}

		// The same split, done another way: the first line must be "---"
		// (trailing blanks allowed) and ends with a newline; the next such
		// line closes.
		lines := strings.SplitAfter(text, "\n")
		isDashes := func(line string) bool {
			return strings.TrimRight(strings.TrimSuffix(line, "\n"), " \t\r") == "---"
		}
		if len(lines) < 2 || !strings.HasSuffix(lines[0], "\n") || !isDashes(lines[0]) {
			if fm != nil || body != text || err != nil {
				t.Fatalf("no frontmatter, yet got %v, %.80q, %v", fm, body, err)
			}
			return
		}
		closing := -1
		for i := 1; i < len(lines); i++ {
			if isDashes(lines[i]) {
				closing = i
				break
			}
		}
		if closing < 0 {
			if err == nil || !strings.Contains(err.Error(), "no closing") || body != text {
				t.Fatalf("no closing line, yet got %v, %.80q, %v", fm, body, err)
			}
			return
		}
		if want := strings.Join(lines[closing+1:], ""); body != want {
			t.Fatalf("body = %.80q, want what follows line %d: %.80q", body, closing+1, want)
		}
		if err != nil && strings.Contains(err.Error(), "no closing") {
			t.Fatalf("closing line %d not found: %v", closing+1, err)
		}
	})
}

// Frontmatter opens and closes where Claude Code's expression finds it:
// "---" followed by any of JavaScript's white space (the re-attack of
// issue 42, F7).
func TestParseFrontmatterOpensAsClaudeReadsIt(t *testing.T) {
	for _, sp := range []string{"", " ", "\t", "\u00a0", "\v", "\f", "\u2028", "\ufeff", "\r"} {
		fm, _, err := ParseFrontmatter([]byte("---" + sp + "\nname: x\nhooks: {}\n---" + sp + "\nbody\n"))
		if err != nil || fm["hooks"] == nil {
			t.Errorf("%q after ---: %v, %v", sp, fm, err)
		}
	}
}
