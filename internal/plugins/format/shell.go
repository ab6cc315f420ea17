package format

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one argument of a simple command as the text the shell makes of
// it. vanish says the shell may drop the word altogether: an unquoted $X
// that is empty, a file-name pattern that matches nothing.
type word struct {
	g      glob
	vanish bool
}

// simpleCommands parses a Bash command line as bash would and returns the
// arguments of every simple command in it: across &&, ||, ;, |, & and
// newlines, inside ( ) and { } groups and the bodies of if, while, until,
// for, select and case. Leading variable assignments and redirections are
// not arguments, and quotes are gone. ok is false, so that the caller can
// fail safe, when the line is too long or nested to parse (tooDeep), does
// not parse, would be read otherwise by the parser than by bash
// (commentJoinsLines), or holds something whose commands cannot be known
// before it runs (splitter).
func simpleCommands(line string) (cmds [][]word, ok bool) {
	if tooDeep(line) {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(line), "")
	if err != nil || commentJoinsLines(f, line) {
		return nil, false
	}
	var s splitter
	s.stmts(f.Stmts)
	return s.cmds, !s.unknown
}

// tooDeep reports a line too long or too bracketed to parse on an agent's
// every tool call. The parser recurses once per level of nesting, with
// some kilobytes of stack each, and takes milliseconds per level of
// "((" (a line of 100,000 overflows the stack, which no recover catches).
// A line a guard should see whole anyway is far longer than this.
func tooDeep(line string) bool {
	const maxLen, maxBrackets = 16 << 10, 256
	if len(line) > maxLen {
		return true
	}
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '(', '{', '[':
			n++
		}
	}
	return n > maxBrackets
}

// commentJoinsLines reports a comment that ends in a backslash. For bash
// the comment ends at the newline all the same; the parser (mvdan.cc/sh
// v3.14.1) reads the backslash and newline as a line continuation and
// joins the next line to the command before the comment, so that
// "ls #\<newline>git push" would look like one command, "ls git push".
func commentJoinsLines(f *syntax.File, line string) bool {
	if !strings.Contains(line, "\\\n") && !strings.Contains(line, "\\\r\n") {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && strings.HasSuffix(c.Text, "\\\n") {
			found = true
		}
		return !found
	})
	return found
}

// splitter collects simple commands. It gives up (unknown) at a command
// substitution, process substitution, arithmetic, a ${...} expansion, a
// here-document or here-string, $'...' and $"..." strings, an array, a
// function definition, or a keyword where a command name should be (as in
// "FOO=1 if"): each can run, or hide, a command that the text does not
// show. A plain $NAME is followed: it stands for any text.
type splitter struct {
	cmds    [][]word
	unknown bool
}

func (s *splitter) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		s.stmt(st)
	}
}

func (s *splitter) stmt(st *syntax.Stmt) {
	if st == nil || s.unknown {
		return
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			s.unknown = true
			return
		}
		s.word(r.Word)
	}
	switch c := st.Cmd.(type) {
	case nil: // redirections only: "> file"
	case *syntax.CallExpr:
		s.call(c)
	case *syntax.DeclClause:
		argv := []word{{g: glob(nil).text(c.Variant.Value)}}
		for _, a := range c.Args {
			argv = append(argv, s.assign(a))
		}
		s.cmds = append(s.cmds, argv)
	case *syntax.BinaryCmd:
		s.stmt(c.X)
		s.stmt(c.Y)
	case *syntax.Subshell:
		s.stmts(c.Stmts)
	case *syntax.Block:
		s.stmts(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			s.stmts(c.Cond)
			s.stmts(c.Then)
		}
	case *syntax.WhileClause:
		s.stmts(c.Cond)
		s.stmts(c.Do)
	case *syntax.ForClause:
		loop, ok := c.Loop.(*syntax.WordIter)
		if !ok { // for ((;;)): arithmetic
			s.unknown = true
			return
		}
		for _, w := range loop.Items {
			s.word(w)
		}
		s.stmts(c.Do)
	case *syntax.CaseClause:
		s.word(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				s.word(p)
			}
			s.stmts(item.Stmts)
		}
	case *syntax.TestClause: // [[ ]] runs nothing but what its words expand
		s.test(c.X)
	case *syntax.TimeClause:
		s.stmt(c.Stmt)
	case *syntax.CoprocClause:
		s.stmt(c.Stmt)
	default: // function definitions, (( )), let
		s.unknown = true
	}
}

func (s *splitter) call(c *syntax.CallExpr) {
	for _, a := range c.Assigns {
		s.assign(a)
	}
	if len(c.Args) == 0 {
		return
	}
	// After an assignment bash reads "if", "{" or "!" as a command name
	// ("FOO=1 { git push; }" runs a command called "{"): the line is not
	// what it looks like.
	if name := c.Args[0].Lit(); syntax.IsKeyword(name) || name == "let" {
		s.unknown = true
		return
	}
	argv := make([]word, 0, len(c.Args))
	for _, w := range c.Args {
		argv = append(argv, s.word(w))
	}
	s.cmds = append(s.cmds, argv)
}

// assign returns an assignment as the argument a declaration command
// ("export A=1") receives.
func (s *splitter) assign(a *syntax.Assign) word {
	if a.Array != nil {
		s.unknown = true
		return word{}
	}
	if a.Naked && a.Name == nil { // "declare -x": an option
		return s.word(a.Value)
	}
	g := glob(nil).text(a.Name.Value)
	if a.Index != nil { // a[i]=x: the index is arithmetic
		syntax.Walk(a.Index, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
				s.unknown = true
			case *syntax.ParamExp:
				s.unknown = s.unknown || !n.Short
			}
			return !s.unknown
		})
		g = g.any()
	}
	if a.Naked {
		return word{g: g}
	}
	if a.Append {
		g = g.text("+=")
	} else {
		g = g.text("=")
	}
	if a.Value != nil {
		g = append(g, s.word(a.Value).g...)
	}
	return word{g: g}
}

func (s *splitter) test(e syntax.TestExpr) {
	switch e := e.(type) {
	case *syntax.BinaryTest:
		s.test(e.X)
		s.test(e.Y)
	case *syntax.UnaryTest:
		s.test(e.X)
	case *syntax.ParenTest:
		s.test(e.X)
	case *syntax.Word:
		s.word(e)
	default:
		s.unknown = true
	}
}

// word returns the text w becomes once quotes are removed. A variable is
// any text; a word with a file-name pattern or a brace expansion is
// replaced by any text (it may become several words, or none).
func (s *splitter) word(w *syntax.Word) word {
	if w == nil {
		return word{}
	}
	if syntax.SplitBraces(w) {
		return word{g: glob{anyText}, vanish: true}
	}
	var g glob
	quoted, pattern := false, false
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			var pat bool
			g, pat = unquoted(g, p.Value)
			pattern = pattern || pat
		case *syntax.SglQuoted:
			if p.Dollar {
				s.unknown = true
			}
			quoted = true
			g = g.text(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				s.unknown = true
			}
			quoted = true
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					g = doubleQuoted(g, q.Value)
				case *syntax.ParamExp:
					if !q.Short {
						s.unknown = true
					}
					g = g.any()
				default:
					s.unknown = true
				}
			}
		case *syntax.ParamExp:
			if !p.Short {
				s.unknown = true
			}
			g = g.any()
		case *syntax.ExtGlob:
			pattern = true
		default: // $(...), `...`, $((...)), <(...)
			s.unknown = true
		}
	}
	if pattern {
		return word{g: glob{anyText}, vanish: true}
	}
	return word{g: g, vanish: !quoted && len(g) == 1 && g[0] == anyText}
}

// unquoted appends an unquoted literal with its backslashes removed, and
// reports whether it holds a file-name pattern (*, ?, or [ with a ]
// after it).
func unquoted(g glob, s string) (glob, bool) {
	pattern := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			g = append(g, int16(s[i]))
		case c == '*' || c == '?' || c == '[' && strings.IndexByte(s[i+1:], ']') >= 0:
			pattern = true
		default:
			g = append(g, int16(c))
		}
	}
	return g, pattern
}

// doubleQuoted appends a literal from inside double quotes, where a
// backslash escapes only $, `, ", \ and a newline.
func doubleQuoted(g glob, s string) glob {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
			c = s[i]
		}
		g = append(g, int16(c))
	}
	return g
}

// commandTexts returns what a rule is matched against for one simple
// command: its arguments joined by single spaces and, when the command is
// a wrapper that runs another (xargs, timeout 5, nohup, sudo, env X=1,
// ...), also every tail of it, so the wrapped command is matched whatever
// options the wrapper took. Claude Code 2.1.328 looks through the same
// wrappers when it checks a command (its permission checker peels time,
// nohup, timeout, nice, stdbuf, env, command and xargs); matching every
// tail matches at least as often. ok is false when a wrapper's words are
// too many to follow: the guard then runs.
func commandTexts(argv []word) (texts []glob, ok bool) {
	texts = append(texts, joinWords(argv))
	if len(argv) < 2 || !isWrapper(argv[0]) {
		return texts, true
	}
	for k := 1; k < len(argv); k++ {
		if k > 16 {
			return nil, false
		}
		texts = append(texts, joinWords(argv[k:]))
	}
	return texts, true
}

// wrappers run the command their arguments name.
var wrappers = []string{"xargs", "time", "nohup", "timeout", "nice", "stdbuf", "env", "command", "builtin",
	"noglob", "sudo", "doas", "setsid", "ionice", "chrt", "taskset", "flock", "watch", "exec", "unbuffer",
	"caffeinate", "chronic", "nsenter", "unshare", "strace", "ltrace", "script"}

func isWrapper(w word) bool {
	for _, name := range wrappers {
		if isText(w.g, name) {
			return true
		}
	}
	return false
}

// joinWords joins arguments with single spaces; next to a word that may
// vanish, the space is left to the word's wildcard, which may stand for
// " value", "value " or nothing.
func joinWords(argv []word) glob {
	var g glob
	for i, w := range argv {
		if i > 0 && !w.vanish && !argv[i-1].vanish {
			g = append(g, ' ')
		}
		for _, c := range w.g {
			if c == anyText {
				g = g.any()
			} else {
				g = append(g, c)
			}
		}
	}
	return g
}

func isText(g glob, s string) bool {
	if len(g) != len(s) {
		return false
	}
	for i := range g {
		if g[i] != int16(s[i]) {
			return false
		}
	}
	return true
}
