package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/async"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/term"
)

// App carries what commands need from the outside world, so tests can swap
// in buffers and temp dirs.
type App struct {
	// Printer prints the command's output and what it says (the root
	// flags --quiet and --no-color are its Quiet and NoColor); a
	// terminal on stderr turns on progress output too.
	term.Printer
	Stdin io.Reader
	Getwd func() (string, error)

	// projectFlag is the root flag --project.
	projectFlag string
	// parsed is set once cobra has parsed flags and arguments, so that an
	// error before it is a usage error.
	parsed bool

	// lastWords, when set, is what the process says before a signal ends
	// it by force (hook run --fail-closed: the block); it returns the
	// exit code. result guards hook run's one result line, so the command
	// and lastWords never both print it.
	lastWords func(proc.Interrupted) int
	// handleSignals, set by main, installs the interrupt handling as a
	// command starts, unless the command is marked quick; tests that run
	// commands in-process leave it nil.
	handleSignals func()
	result        sync.Mutex
	answered      *answer
	// owner starts the process that owns background handlers (`hook
	// collect`, set by main); nil in tests that run commands in-process,
	// which then wait for them.
	owner *async.Owner
	// cmdEnv is the command's discovery.Env, built at first use (env).
	cmdEnv *discovery.Env
	// jobs is --jobs of the commands that fetch (jobsFlag).
	jobs int
}

func newApp() *App {
	return &App{
		Printer: term.Printer{
			Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Redact: plugins.Redact,
			StdoutIsTTY: term.IsTerminal(os.Stdout), StderrIsTTY: term.IsTerminal(os.Stderr),
		},
		Stdin: os.Stdin,
		Getwd: os.Getwd,
	}
}

// Exit codes (SPEC §7).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks a bad flag or argument: exit 2, with the usage line.
type usageError struct {
	err error
	cmd *cobra.Command
	// commands: the error is an unknown command, so the pointer after it
	// is to the command's list of subcommands, not its usage line.
	commands bool
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(cmd *cobra.Command, format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...), cmd: cmd}
}

// quick is the annotation of a command that neither writes nor starts
// processes, so that a signal may end it as it ends any program: it runs
// without quiver's signal handling, whose locked OS thread and the thread
// hand-offs it causes cost 0.3-0.6 ms (more on a busy machine), several
// times all the rest of such a command's work.
const quick = "quiver/quick"

// errReported is returned when a command already printed its errors.
var errReported = errors.New("errors reported")

// run executes the command line and maps the outcome to an exit code. This
// is the one place that prints an error.
func (a *App) run(ctx context.Context, args []string) int {
	a.cmdEnv, a.answered, a.lastWords = nil, nil, nil
	root := a.newRootCmd(args...)
	root.SetArgs(args)
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	return a.execute(ctx, root, formatFlagGiven(args))
}

// execute runs the command tree and maps the outcome to an exit code.
// For an agent (asAgent: --format given), to which exit 2 is an answer
// (block, or wake the model), quiver's own usage errors exit 1.
func (a *App) execute(ctx context.Context, root *cobra.Command, asAgent bool) int {
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var code exitCodeError
	if errors.As(err, &code) {
		return int(code)
	}
	if ie, ok := proc.Interruption(ctx); ok {
		a.Error(ie)
		return ie.ExitCode()
	}
	if errors.Is(err, errReported) {
		return exitFailure
	}
	var ue *usageError
	usage := errors.As(err, &ue) || !a.parsed || errors.Is(err, plugins.ErrUsage) ||
		errors.Is(err, plugins.ErrInvalidName) || errors.Is(err, plugins.ErrInvalidSpec)
	a.Error(err)
	if usage {
		if ue != nil && ue.cmd != nil {
			cmd = ue.cmd
		}
		switch {
		case ue != nil && ue.commands:
			fmt.Fprintf(a.Stderr, "Run '%s --help' for its commands.\n", cmd.CommandPath())
		case cmd != nil:
			fmt.Fprintf(a.Stderr, "Usage: %s\nRun '%s --help' for more.\n", cmd.UseLine(), cmd.CommandPath())
		}
		if asAgent {
			return exitFailure
		}
		return exitUsage
	}
	return exitFailure
}

// newRootCmd builds the command tree. Given the command line, it builds
// only the top-level command the line names: every process pays for the
// tree it builds, and all of it (about 60 commands and their flags) is a
// measurable part of a one-shot hook run. Help, completion, no command and
// an unknown one get the whole tree, as does a call without arguments.
func (a *App) newRootCmd(args ...string) *cobra.Command {
	root := &cobra.Command{
		Use:   "quiver",
		Short: "Package manager for AI-agent plugins: hooks, skills and recipes",
		Long: `quiver installs plugin repositories (hooks, skills and recipes for AI agents)
into a project (.quiver/) or your home (~/.quiver, with -g), locks the exact
commit in quiver.lock, and runs the merged hook set when an agent triggers an
event.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          subcommandArgs,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.parsed = true
			if a.handleSignals != nil && cmd.Annotations[quick] == "" {
				a.handleSignals()
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// quiver add X --ref v1: the flag is unknown because the
		// command is; say the command.
		if word := strayWord(c, args); word >= 0 {
			return unknownCommand(c, args[word:])
		}
		return &usageError{err: err, cmd: c}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.projectFlag, "project", "", "use `DIR` as the project directory")
	pf.BoolVarP(&a.Quiet, "quiet", "q", false, "print only data and errors")
	pf.BoolVar(&a.NoColor, "no-color", false, "never color the output")
	// Every top-level command, by name: a new command is one line here
	// ({"audit", a.newAuditCmd}); its subtree is built only when the
	// command line names it (or needs the whole tree: help, completion).
	top := []struct {
		name, group string
		build       func() *cobra.Command
	}{
		{"plugin", "plugins", a.newPluginCmd},
		{"marketplace", "plugins", a.newMarketplaceCmd},
		{"search", "plugins", a.newSearchCmd},
		{"trust", "plugins", a.newTrustCmd},
		{"hook", "parts", a.newHookCmd},
		{string(skillKind.kind), "parts", func() *cobra.Command { return a.newDocCmd(skillKind) }},
		{string(recipeKind.kind), "parts", func() *cobra.Command { return a.newDocCmd(recipeKind) }},
		{"agent", "agents", a.newAgentCmd},
		{"doctor", "checks", a.newDoctorCmd},
		{"audit", "checks", a.newAuditCmd},
		{"policy", "checks", a.newPolicyCmd},
		{"version", "checks", a.newVersionCmd},
		// What agents run, as git keeps its plumbing apart from the
		// commands people type.
		{"mcp", "plumbing", a.newMCPCmd},
		{"lsp", "plumbing", a.newLSPCmd},
	}
	// Cobra itself finds the command among stand-ins, so flags before it
	// (--project DIR) are read exactly as the real run reads them.
	stands := make([]*cobra.Command, len(top))
	for i, t := range top {
		stands[i] = &cobra.Command{Use: t.name}
	}
	root.AddCommand(stands...)
	named, _, err := root.Find(args)
	root.RemoveCommand(stands...)
	partial := err == nil && named != root
	if !partial {
		root.AddGroup(&cobra.Group{ID: "plugins", Title: "Plugins:"},
			&cobra.Group{ID: "parts", Title: "What plugins bring:"},
			&cobra.Group{ID: "agents", Title: "Agents:"},
			&cobra.Group{ID: "checks", Title: "Checks:"},
			&cobra.Group{ID: "plumbing", Title: "Run by agents, not typed (plumbing):"})
		root.SetHelpCommandGroupID("checks")
		root.SetCompletionCommandGroupID("checks")
	}
	for i, t := range top {
		if !partial || named == stands[i] {
			cmd := t.build()
			if !partial {
				cmd.GroupID = t.group
			}
			root.AddCommand(cmd)
		}
	}
	// Cobra's completion command is one more tree, which a run that named
	// another command never reaches.
	root.CompletionOptions.DisableDefaultCmd = partial
	if !partial {
		// quiver --version, as cobra, git and npm users type it.
		root.Version = version
		root.SetVersionTemplate(versionLine() + "\n")
	}
	return root
}

// layout resolves the scopes for this invocation (SPEC §1).
func (a *App) layout() (plugins.Layout, error) { return a.layoutAt("") }

// env is what this command works in (discovery.Env): its scopes, built
// once per command, so that its fetcher and policy are read once.
func (a *App) env() (*discovery.Env, error) {
	if a.cmdEnv == nil {
		layout, err := a.layout()
		if err != nil {
			return nil, err
		}
		a.cmdEnv = a.envAt(layout)
	}
	return a.cmdEnv, nil
}

// envAt is the Env of layout, which warns as Warnf does and shows git's
// progress on a terminal.
func (a *App) envAt(layout plugins.Layout) *discovery.Env {
	e := &discovery.Env{Layout: layout, Getenv: a.Getenv,
		Warn:    func(msg string) { a.Warnf("%s", msg) },
		Waiting: func(msg string) { fmt.Fprintln(a.Stderr, msg) }}
	if a.StderrIsTTY && !a.Quiet {
		e.Progress = a.Stderr
		e.Fetching = fetchingLine(&term.Status{W: a.Stderr, Getenv: a.Getenv})
	}
	e.Jobs = a.jobs
	if e.Jobs == 0 {
		n, err := plugins.ParseJobs(a.Getenv("QUIVER_JOBS"))
		if err != nil {
			a.Warnf("quiver: QUIVER_JOBS: %v; fetching %d at a time", err, plugins.DefaultJobs)
		}
		e.Jobs = n
	}
	return e
}

// jobsFlag gives cmd, a command that fetches several plugins, --jobs.
func (a *App) jobsFlag(cmd *cobra.Command) {
	cmd.Flags().Var(jobsValue{&a.jobs}, "jobs", fmt.Sprintf("fetch at most `N` plugins at once, 1 to %d (default %d, or $QUIVER_JOBS)", plugins.MaxJobs, plugins.DefaultJobs))
}

// jobsValue is --jobs: a number plugins.ParseJobs takes.
type jobsValue struct{ n *int }

func (v jobsValue) String() string {
	if v.n == nil || *v.n == 0 {
		return ""
	}
	return strconv.Itoa(*v.n)
}

func (v jobsValue) Set(s string) error {
	n, err := plugins.ParseJobs(s)
	if err == nil && n == 0 {
		err = fmt.Errorf("%q is not a number of fetches from 1 to %d", s, plugins.MaxJobs)
	}
	*v.n = n
	return err
}

func (jobsValue) Type() string { return "int" }

// fetchingLine shows concurrent fetches on a terminal's status line: the
// plugins in flight and how many are done, erased once all are.
func fetchingLine(s *term.Status) func(plugins.Fetching) {
	return func(f plugins.Fetching) {
		if len(f.InFlight) == 0 {
			s.Clear()
			return
		}
		s.Show(fmt.Sprintf("quiver: fetching %s (%d of %d done)", strings.Join(f.InFlight, ", "), f.Done, f.Total))
	}
}

// layoutAt resolves the scopes as layout does, except that an agent's
// session root, when given, stands for the working directory
// (plugins.ResolveLayout).
func (a *App) layoutAt(sessionRoot string) (plugins.Layout, error) {
	return plugins.ResolveLayout(a.projectFlag, sessionRoot, a.Getenv, a.Getwd, func(msg string) { a.Warnf("quiver: %s", msg) })
}

// group is a command that only holds others: without a subcommand it
// prints its help.
func group(use, short, long string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Long: long, Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() }}
	cmd.AddCommand(subs...)
	return cmd
}

// noArgs, exactArgs and minArgs are cobra's validators returning usage
// errors.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == n:
		case n == 0:
			return usageErrorf(cmd, "%s takes no arguments, got %s", commandName(cmd), quoteArgs(args))
		case n == 1 && len(args) == 0:
			return usageErrorf(cmd, "%s needs an argument", commandName(cmd))
		case n == 1:
			return usageErrorf(cmd, "%s takes one argument, got %d: %s", commandName(cmd), len(args), quoteArgs(args))
		default:
			return usageErrorf(cmd, "%s takes %d arguments, got %d", commandName(cmd), n, len(args))
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) >= n:
		case n == 1:
			return usageErrorf(cmd, "%s needs an argument", commandName(cmd))
		default:
			return usageErrorf(cmd, "%s needs at least %d arguments", commandName(cmd), n)
		}
		return nil
	}
}

var noArgs = exactArgs(0)

// commandName is the command's path without the program's name, which
// every error already starts with ("quiver: plugin add needs ...").
func commandName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// quoteArgs lists arguments as a shell user would retype them.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, s := range args {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, " ")
}
