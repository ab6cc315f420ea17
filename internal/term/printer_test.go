package term

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/safefs"
)

func newPrinter(env map[string]string) (*Printer, *bytes.Buffer, *bytes.Buffer) {
	var out, errs bytes.Buffer
	return &Printer{Stdout: &out, Stderr: &errs, Getenv: func(k string) string { return env[k] },
		Redact: func(s string) string { return strings.ReplaceAll(s, "s3cret", "***") }}, &out, &errs
}

// TestColors: color only on a terminal, never with --no-color, NO_COLOR
// or TERM=dumb (https://no-color.org, gh).
func TestColors(t *testing.T) {
	for _, c := range []struct {
		name    string
		tty     bool
		noColor bool
		env     map[string]string
		want    bool
	}{
		{"terminal", true, false, nil, true},
		{"pipe", false, false, nil, false},
		{"--no-color", true, true, nil, false},
		{"NO_COLOR", true, false, map[string]string{"NO_COLOR": "1"}, false},
		{"TERM=dumb", true, false, map[string]string{"TERM": "dumb"}, false},
	} {
		p, out, _ := newPrinter(c.env)
		p.StdoutIsTTY, p.NoColor = c.tty, c.noColor
		if got := p.Colors(c.tty); got != c.want {
			t.Errorf("%s: Colors = %v, want %v", c.name, got, c.want)
		}
		if err := p.Table([]string{"NAME", "STATUS"}, [][]string{{"a", "untrusted"}, {"b", "ok"}}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), Yellow+"untrusted"+reset); got != c.want {
			t.Errorf("%s: colored table = %v, want %v:\n%q", c.name, got, c.want, out)
		}
		if !c.want && strings.Contains(out.String(), "\x1b") {
			t.Errorf("%s: escape in uncolored output: %q", c.name, out)
		}
	}
}

// TestErrorIsOneSafeLine: an error is one "quiver: " line whatever it
// carried: newlines folded, terminal escapes made visible, credentials
// redacted; a warning the same, and none with Quiet.
func TestErrorIsOneSafeLine(t *testing.T) {
	p, _, errs := newPrinter(nil)
	p.Error(errors.New("fetch https://u:s3cret@h/x:\n  \x1b[2Jdenied"))
	got := errs.String()
	if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "quiver: ") {
		t.Errorf("not one quiver: line: %q", got)
	}
	if strings.Contains(got, "s3cret") || strings.Contains(got, "\x1b") {
		t.Errorf("credential or escape printed: %q", got)
	}
	errs.Reset()
	p.Warnf("token %s", "s3cret")
	if got := errs.String(); got != "token ***\n" {
		t.Errorf("Warnf = %q", got)
	}
	errs.Reset()
	p.Quiet = true
	p.Warnf("hidden")
	p.Say("hidden too", nil)
	p.Say("", errors.New("shown"))
	if got := errs.String(); got != "quiver: shown\n" {
		t.Errorf("with Quiet: %q", got)
	}
}

// TestList: JSON with asJSON (an empty list is [], not null), else a
// table, or the "none" notice on stderr.
func TestList(t *testing.T) {
	row := func(s string) []string { return []string{s} }
	p, out, errs := newPrinter(nil)
	if err := List(p, true, []string{}, "none", []string{"X"}, row); err != nil || out.String() != "[]\n" {
		t.Errorf("empty JSON list = %q, %v", out, err)
	}
	out.Reset()
	if err := List(p, false, nil, "No items.", []string{"X"}, row); err != nil || out.Len() != 0 || errs.String() != "No items.\n" {
		t.Errorf("empty table: stdout %q, stderr %q, %v", out, errs, err)
	}
	out.Reset()
	if err := List(p, false, []string{"a\x1b[31m"}, "", []string{"X"}, row); err != nil || strings.Contains(out.String(), "\x1b") {
		t.Errorf("table: %q, %v", out, err)
	}
}

// TestVerdict: a passed check says its line; a failed one only returns
// its error (which the command prints once, as every error).
func TestVerdict(t *testing.T) {
	p, _, errs := newPrinter(nil)
	if err := p.Verdict("All 2 plugins match.", nil); err != nil || errs.String() != "All 2 plugins match.\n" {
		t.Errorf("passed: %v, said %q", err, errs)
	}
	errs.Reset()
	failed := errors.New("drift")
	if err := p.Verdict("", failed); err != failed || errs.Len() != 0 {
		t.Errorf("failed: %v, said %q", err, errs)
	}
}

// TestTextOnlyEscapesOnATerminal: a skill shown on a terminal cannot
// drive it (escapes, bidi overrides, invalid bytes become Go escapes;
// newlines, tabs and other text stay), and a pipe gets its bytes as they
// are.
func TestTextOnlyEscapesOnATerminal(t *testing.T) {
	doc := "# Review\n\tlook é\x1b]0;pwned\x07 \u202eevil\xff\n"
	p, out, _ := newPrinter(nil)
	if err := p.Text([]byte(doc)); err != nil || out.String() != doc {
		t.Errorf("pipe: %q, %v", out, err)
	}
	out.Reset()
	p.StdoutIsTTY = true
	want := "# Review\n\tlook é\\x1b]0;pwned\\a \\u202eevil\\xff\n"
	if err := p.Text([]byte(doc)); err != nil || out.String() != want {
		t.Errorf("terminal: %q, want %q (%v)", out, want, err)
	}
	if got := safefs.VisibleText("plain\ttext\n"); got != "plain\ttext\n" {
		t.Errorf("plain text changed: %q", got)
	}
}

type entry struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags,omitempty"`
	Extra map[string]any    `json:"extra"`
	Next  *entry            `json:"next,omitempty"`
	Note  ptrMarshaler      `json:"note"`
	Plain valueMarshaler    `json:"plain"`
	Empty struct{}          `json:"empty"`
	Sub   map[string]string `json:"sub,omitempty"`
}

// ptrMarshaler marshals only by address, as a slice's elements are.
type ptrMarshaler struct{ s string }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(`{"by":"pointer","s":` + strconvQuote(p.s) + `}`), nil
}

type valueMarshaler string

func (v valueMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(`["by value",` + strconvQuote(string(v)) + `]`), nil
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestJSONListIsTheWholeDocument: printed an element at a time, a list is
// byte for byte what encoding the whole slice at once prints, for random
// lists of nested values with HTML, control and non-ASCII text.
func TestJSONListIsTheWholeDocument(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 4))
	words := []string{"", "a", "<b>&amp;", "é\u2028", "line\nbreak", "\x01tab\t", `quo"te\`, "org/plugin/hook"}
	word := func() string { return words[rng.IntN(len(words))] }
	var make func(depth int) entry
	make = func(depth int) entry {
		e := entry{Name: word(), Note: ptrMarshaler{word()}, Plain: valueMarshaler(word()), Extra: map[string]any{}}
		for range rng.IntN(3) {
			e.Tags = append(e.Tags, word())
		}
		for range rng.IntN(3) {
			e.Extra[word()] = []any{word(), rng.IntN(100), rng.Float64() < 0.5, nil, map[string]any{word(): word()}}
		}
		if rng.IntN(2) == 0 {
			e.Sub = map[string]string{word(): word()}
		}
		if depth < 2 && rng.IntN(3) == 0 {
			n := make(depth + 1)
			e.Next = &n
		}
		return e
	}
	whole := func(v any) string { return encodeWhole(t, v) }
	check := func(name string, got error, out *bytes.Buffer, want string) {
		t.Helper()
		if err := json.Unmarshal([]byte(want), new(any)); err != nil {
			t.Fatalf("%s: not JSON: %v", name, err)
		}
		if got != nil || out.String() != want {
			t.Fatalf("%s: error %v\ngot  %q\nwant %q", name, got, out, want)
		}
	}
	for i := range 200 {
		items := []entry{}
		for range rng.IntN(6) {
			items = append(items, make(0))
		}
		out, err := listJSON(items)
		check(fmt.Sprint("entries ", i), err, out, whole(items))
	}
	for name, items := range map[string][]any{"nil": nil, "empty": {}, "mixed": {nil, 1, "x<y", []int{}, map[string]int{}, []string{"a"}, 2.5}} {
		out, err := listJSON(items)
		check(name, err, out, whole(items))
	}
	ptrs := []*entry{nil, {Name: "p"}}
	out, err := listJSON(ptrs)
	check("pointers", err, out, whole(ptrs))
}

// listJSON is what List prints of items with --json.
func listJSON[T any](items []T) (*bytes.Buffer, error) {
	p, out, _ := newPrinter(nil)
	return out, List(p, true, items, "", nil, nil)
}

// TestJSONEachReusesOneValue: a sequence may hand out one value it
// changes between elements (each is printed before the next is asked
// for), and an empty one prints [], as an empty slice does.
func TestJSONEachReusesOneValue(t *testing.T) {
	p, out, _ := newPrinter(nil)
	if err := p.jsonEach(func(func(any) bool) {}); err != nil || out.String() != "[]\n" {
		t.Errorf("empty: %q, %v", out, err)
	}
	out.Reset()
	names := []string{"a", "<b>", "c"}
	var e entry
	err := p.jsonEach(func(yield func(any) bool) {
		for _, n := range names {
			e = entry{Name: n}
			if !yield(&e) {
				return
			}
		}
	})
	want := encodeWhole(t, []entry{{Name: "a"}, {Name: "<b>"}, {Name: "c"}})
	if err != nil || out.String() != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}
}

// encodeWhole is v as JSON printed it before lists went element by
// element: the whole value encoded at once, indented, HTML unescaped.
func encodeWhole(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// failing cannot be encoded when N is 2.
type failing struct{ N int }

func (f failing) MarshalJSON() ([]byte, error) {
	if f.N == 2 {
		return nil, errors.New("boom")
	}
	return []byte(fmt.Sprint(f.N)), nil
}

// TestJSONListFailsWhole: an element that cannot be encoded prints
// nothing of a short list, as encoding the slice at once did.
func TestJSONListFailsWhole(t *testing.T) {
	p, out, _ := newPrinter(nil)
	if err := List(p, true, []failing{{1}, {2}, {3}}, "", nil, nil); err == nil || !strings.Contains(err.Error(), "boom") || out.Len() != 0 {
		t.Errorf("printed %q, error %v", out, err)
	}
}

// TestAppendIndentedIsJSONIndent: for what json.Encoder writes, the list
// printer's own layout is json.Indent's, byte for byte, over seeded
// random values (nested and empty objects and arrays, numbers, and
// strings full of quotes, backslashes and control characters).
func TestAppendIndentedIsJSONIndent(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	chars := []string{"a", `"`, `\`, "\n", "\x00", "é", "\u2028", "{", "}", "[", "]", ",", ":", " ", "<&>"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(chars[rng.IntN(len(chars))])
		}
		return b.String()
	}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(7); {
		case depth > 3 || k == 0:
			return str()
		case k == 1:
			return rng.Float64() * 1e6
		case k == 2:
			return []any{nil, true}[rng.IntN(2)]
		case k <= 4:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[str()] = value(depth + 1)
			}
			return m
		default:
			a := []any{}
			for range rng.IntN(4) {
				a = append(a, value(depth+1))
			}
			return a
		}
	}
	for range 3000 {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(value(0)); err != nil {
			t.Fatal(err)
		}
		compact := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		for _, layout := range [][2]string{{"  ", "  "}, {"", "\t"}} {
			var want bytes.Buffer
			if err := json.Indent(&want, compact, layout[0], layout[1]); err != nil {
				t.Fatal(err)
			}
			if got := appendIndented(nil, compact, layout[0], layout[1]); !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("%s\ngot  %q\nwant %q", compact, got, want.Bytes())
			}
		}
	}
}
