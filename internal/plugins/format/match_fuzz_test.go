package format

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The reference below knows nothing of shell.go or mvdan.cc/sh. It builds
// lines in a grammar small enough to read at a glance, and says what
// Claude's `if` sees in each: commands made of words of [a-z0-9=.-],
// joined by &&, ||, ;, | or a newline; before its first word a command
// may have NAME=value assignments, and anywhere it may have ">file"
// redirections. A simple command's text is its words, assignments and
// redirections dropped, joined by single spaces.

// refWords are words of the grammar that bash reads as plain words
// wherever they stand; no keyword, and no command that runs another (which
// quiver, unlike Claude, looks through).
var refWords = []string{"git", "push", "commit", "gt", "create", "ls", "x", "y", "-f", "--", "a.b", "1", "1=x", "=a", "a-b=c", ".", "..", "go", "test", "npm", "run"}

// refSpecial are the words refLine never makes: reserved words, commands
// that run another, and declaration builtins, which bash parses apart.
var refSpecial = []string{"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
	"do", "done", "in", "function", "time", "coproc", "let", "export", "declare", "local", "readonly", "typeset",
	"nameref", "eval"}

// refReader hands out the fuzz input a byte at a time, then zeros.
type refReader []byte

func (r *refReader) next(n int) int {
	if len(*r) == 0 {
		return 0
	}
	b := (*r)[0]
	*r = (*r)[1:]
	return int(b) % n
}

func (r *refReader) word() string {
	if r.next(3) > 0 {
		return refWords[r.next(len(refWords))]
	}
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789=.-"
	var b strings.Builder
	for n := 1 + r.next(5); n > 0; n-- {
		b.WriteByte(chars[r.next(len(chars))])
	}
	w := b.String()
	if slices.Contains(refSpecial, w) || slices.Contains(wrappers, w) {
		return "w"
	}
	return w
}

// refAssignment reports a word bash takes as NAME=value before a command.
func refAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// refLine makes a line of the grammar from data, and the text of each of
// its simple commands that has words.
func refLine(data []byte) (line string, texts []string) {
	r := refReader(data)
	blanks := []string{" ", " ", "  ", "\t"}
	seps := []string{" && ", "&&", " || ", "; ", ";", " | ", "|", "\n"}
	var b strings.Builder
	for c := 1 + r.next(4); c > 0; c-- {
		var argv, tokens []string
		for n := r.next(2); n > 0; n-- { // assignments first
			tokens = append(tokens, []string{"a", "b2", "x"}[r.next(3)]+"="+[]string{"", "1", "v.v", "=", "a=b"}[r.next(5)])
		}
		for n := 1 + r.next(5); n > 0; n-- {
			switch k := r.next(6); {
			case k == 0:
				tokens = append(tokens, ">"+r.word())
			case k == 1 && len(argv) == 0:
				tokens = append(tokens, "c=3") // still an assignment: no word yet
			default:
				w := r.word()
				if len(argv) == 0 && refAssignment(w) {
					tokens = append(tokens, w) // bash reads it as an assignment
					continue
				}
				argv = append(argv, w)
				tokens = append(tokens, w)
			}
		}
		for i, t := range tokens {
			if i > 0 {
				b.WriteString(blanks[r.next(len(blanks))])
			}
			b.WriteString(t)
		}
		if len(argv) > 0 {
			texts = append(texts, strings.Join(argv, " "))
		}
		if c > 1 {
			b.WriteString(seps[r.next(len(seps))])
		}
	}
	return b.String(), texts
}

// refRules are the rule shapes checked, with what each accepts of a text.
var refRules = []struct {
	rule   func(x, y string) string
	accept func(x, y, text string) bool
}{
	{func(x, _ string) string { return x + ":*" },
		func(x, _, t string) bool { return t == x || strings.HasPrefix(t, x+" ") }},
	{func(x, y string) string { return x + " " + y + " *" },
		func(x, y, t string) bool { return t == x+" "+y || strings.HasPrefix(t, x+" "+y+" ") }},
	{func(x, _ string) string { return x },
		func(x, _, t string) bool { return t == x }},
}

// refRuleWords picks the x and y of the rules: often the first words of
// one of the line's commands, so that rules match as often as not.
func refRuleWords(data []byte, texts []string) (x, y string) {
	r := refReader(data[len(data)/2:])
	x, y = r.word(), r.word()
	if len(texts) > 0 && r.next(3) > 0 {
		f := strings.Fields(texts[r.next(len(texts))])
		x = f[0]
		if len(f) > 1 && r.next(2) == 0 {
			y = f[1]
		}
	}
	return x, y
}

// FuzzConditionReference checks Condition.Match on Bash lines against the
// reference above, and that on any input at all Match never panics and
// a line that does not parse runs the guard. The seed corpus (the cases
// of the other Bash tests and 1,000 seeded random inputs) runs with every
// go test; go test -fuzz=FuzzConditionReference explores further.
func FuzzConditionReference(f *testing.F) {
	for _, tt := range bashCases {
		f.Add([]byte(tt.command))
	}
	const seed = 28
	f.Logf("random seeds from PCG(%d, 4)", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	for range 1000 {
		b := make([]byte, 8+rng.IntN(120))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		line, texts := refLine(data)
		x, y := refRuleWords(data, texts)
		for _, shape := range refRules {
			rule := "Bash(" + shape.rule(x, y) + ")"
			want := slices.ContainsFunc(texts, func(text string) bool { return shape.accept(x, y, text) })
			if got := matches(t, rule, line); got != want {
				t.Errorf("%s on %q = %v, the reference says %v (commands %q)", rule, line, got, want, texts)
			}
			// Any input: no panic, and a guard on a line that does not
			// parse always runs.
			raw := asJSON(string(data))
			if got := matches(t, rule, raw); !got && (tooDeep(raw) || !parses(raw)) {
				t.Errorf("%s on %q, which quiver cannot parse, skipped the guard", rule, raw)
			}
		}
		// Any specifier: no panic.
		if c, err := ParseCondition("Bash(" + string(data) + ")"); err == nil {
			c.Match("Bash", json.RawMessage(`{"command":"git push origin"}`), "/p", "/p", "/home/u")
		}
		for _, tool := range []string{"Edit", "Glob"} {
			if c, err := ParseCondition(tool + "(" + string(data) + ")"); err == nil {
				in, _ := json.Marshal(map[string]string{"file_path": line, "pattern": line})
				c.Match(tool, in, "/p/sub", "/p", "/home/u")
			}
		}
	})
}

// matches runs a Bash condition the way a payload brings it: the line as
// JSON, where invalid UTF-8 has become U+FFFD.
func matches(t *testing.T, rule, line string) bool {
	t.Helper()
	c, err := ParseCondition(rule)
	if err != nil {
		t.Fatalf("%s: %v", rule, err)
	}
	in, _ := json.Marshal(map[string]string{"command": line})
	return c.Match("Bash", in, "/p", "/p", "/home/u")
}

// asJSON is s as it reaches a hook: through JSON, invalid UTF-8 replaced.
func asJSON(s string) string {
	b, _ := json.Marshal(s)
	json.Unmarshal(b, &s)
	return s
}
