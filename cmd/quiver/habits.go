package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// What people type out of habit from npm, gh, helm, cargo and Claude
// Code's own `claude plugin`. A synonym whose meaning is unambiguous is an
// alias of the command it means (`plugin upgrade` is `plugin update`,
// `plugin search` is `search`); a word that could mean more than one
// command, or that would change what it changes (`quiver install X`
// could be plugin add or plugin install), is an unknown command whose
// error names the command to run, arguments included. docs/habits.md lists
// both.

// habit is what a mistyped or borrowed command word meant: the command
// line to suggest, given the arguments that followed it.
type habit func(args []string) string

// with appends the arguments to a suggested command line.
func with(line string) habit {
	return func(args []string) string { return strings.TrimSpace(line + " " + strings.Join(args, " ")) }
}

// habits maps a command's path ("quiver", "quiver plugin") and a word
// not among its subcommands to what the word meant there.
var habits = map[string]map[string]habit{
	"quiver": {
		"install": func(args []string) string {
			if len(args) == 0 {
				return "quiver plugin install"
			}
			return with("quiver plugin add")(args)
		},
		"i":         with("quiver plugin add"),
		"add":       with("quiver plugin add"),
		"remove":    with("quiver plugin remove"),
		"rm":        with("quiver plugin remove"),
		"uninstall": with("quiver plugin remove"),
		"update":    with("quiver plugin update"),
		"upgrade":   with("quiver plugin update"),
		"up":        with("quiver plugin update"),
		"outdated":  with("quiver plugin outdated"),
		"show":      with("quiver plugin show"),
		"info":      with("quiver plugin show"),
		"view":      with("quiver plugin show"),
		"verify":    with("quiver plugin verify"),
		"enable":    with("quiver plugin enable"),
		"disable":   with("quiver plugin disable"),
		"init":      with("quiver plugin init"),
		"validate":  with("quiver plugin validate"),
		"config":    with("quiver plugin config"),
		"find":      with("quiver search"),
		"sync":      with("quiver agent sync"),
		"list": func([]string) string {
			return "quiver plugin list (or skill list, recipe list, hook list, agent list, marketplace list)"
		},
		"ls": func([]string) string {
			return "quiver plugin list (or skill list, recipe list, hook list, agent list, marketplace list)"
		},
	},
	"quiver plugin": {
		"i":       with("quiver plugin add"),
		"new":     with("quiver plugin init"),
		"create":  with("quiver plugin init"),
		"lint":    with("quiver plugin validate"),
		"check":   with("quiver plugin verify"),
		"details": with("quiver plugin show"),
	},
	"quiver marketplace": {
		"install": with("quiver marketplace add"),
		"refresh": with("quiver marketplace update"),
	},
	"quiver agent": {
		"add":    with("quiver agent install"),
		"update": with("quiver agent sync"),
	},
}

// unknownCommand is the error for args[0] when it names no subcommand of
// cmd: one line, saying what was meant where the word is a known habit,
// else cobra's nearest names.
func unknownCommand(cmd *cobra.Command, args []string) error {
	word := args[0]
	var meant []string
	if h, ok := habits[cmd.CommandPath()][word]; ok {
		meant = []string{h(args[1:])}
	} else {
		cmd.SuggestionsMinimumDistance = 2
		for _, s := range cmd.SuggestionsFor(word) {
			meant = append(meant, cmd.CommandPath()+" "+s)
		}
	}
	err := fmt.Errorf("%q is not a %s command", word, cmd.CommandPath())
	if len(meant) > 0 {
		err = fmt.Errorf("%q is not a %s command: did you mean %s?", word, cmd.CommandPath(), strings.Join(meant, " or "))
	}
	return &usageError{err: err, cmd: cmd, commands: true}
}

// strayWord is the index in the command line args of the first word that
// is neither a flag of c nor one of c's names, when c holds commands: a
// word that names no command of c. -1 when there is none.
func strayWord(c *cobra.Command, args []string) int {
	if !c.HasSubCommands() {
		return -1
	}
	fs := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	c.Flags().VisitAll(func(f *pflag.Flag) {
		fs.AddFlag(&pflag.Flag{Name: f.Name, Shorthand: f.Shorthand, Value: noValue{f.Value.Type()}, NoOptDefVal: f.NoOptDefVal})
	})
	path := strings.Fields(c.CommandPath())[1:]
	if fs.Parse(args) != nil {
		return -1
	}
	words := fs.Args()
	if len(words) <= len(path) {
		return -1
	}
	stray := words[len(path)]
	for i, a := range args {
		if a == stray {
			return i
		}
	}
	return -1
}

// noValue stands for a flag's value while strayWord reads a command line:
// it takes anything and keeps nothing.
type noValue struct{ typ string }

func (v noValue) String() string   { return "" }
func (v noValue) Set(string) error { return nil }
func (v noValue) Type() string     { return v.typ }

// subcommandArgs is the Args of a command that holds others: arguments
// that name none of them are an unknown command.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args)
	}
	return nil
}

// searchAlias is quiver search where people look for it too: quiver
// plugin search and quiver marketplace search (hidden; search is the
// name help shows).
func (a *App) searchAlias() *cobra.Command {
	cmd := a.newSearchCmd()
	cmd.Hidden = true
	return cmd
}
