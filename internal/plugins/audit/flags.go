package audit

import (
	"errors"
	"fmt"

	"github.com/quiver-cli/quiver/internal/term"
)

// ErrUsage marks flags that contradict each other: errors.Is(err,
// ErrUsage) holds for Resolve's errors.
var ErrUsage = errors.New("usage")

type usageError struct{ error }

func (usageError) Is(target error) bool { return target == ErrUsage }

// Flags are quiver audit's flags as given: -g or --scope, --json or
// --format, --strict.
type Flags struct {
	Global bool
	Scope  string
	JSON   bool
	Format string
	Strict bool
}

// Resolve checks the flags against each other and says the output to
// print ("table", "json" or "sarif") and whether the global scope is
// audited; an error wraps ErrUsage.
func (f Flags) Resolve() (format string, global bool, err error) {
	usage := func(format string, a ...any) error {
		return usageError{fmt.Errorf(format, a...)}
	}
	switch f.Scope {
	case "", "project", "global":
	default:
		return "", false, usage("--scope %q: want project or global", f.Scope)
	}
	if f.Global && f.Scope == "project" {
		return "", false, usage("-g and --scope project name different scopes")
	}
	switch f.Format {
	case "", "table":
		format = "table"
	case "json", "sarif":
		format = f.Format
	default:
		return "", false, usage("--format %q: want table, json or sarif", f.Format)
	}
	if f.JSON {
		if f.Format != "" && f.Format != "json" {
			return "", false, usage("--json and --format %s name different outputs", f.Format)
		}
		format = "json"
	}
	return format, f.Global || f.Scope == "global", nil
}

// Print writes the report in format (Flags.Resolve): a table of the
// checks, then one of the findings when there are any; the --json
// report; or SARIF 2.1.0 naming quiver version.
func (r Report) Print(p *term.Printer, format, version string) error {
	switch format {
	case "json":
		return p.JSON(r)
	case "sarif":
		return p.JSON(r.SARIF(version))
	}
	if err := p.Table(CheckHeader, r.CheckRows()); err != nil {
		return err
	}
	rows := r.FindingRows()
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(p.Stdout)
	return p.Table(FindingHeader, rows)
}

// Verdict is the audit's last word on the scope it covered (global or
// the project): the error it failed with, or the line that says it
// passed.
func (r Report) Verdict(global, strict bool) (passed string, err error) {
	scope, how := "the project", ""
	if global {
		scope = "the global scope"
	}
	if strict {
		how = ", warnings counted as errors (--strict)"
	}
	if !r.Passed {
		return "", fmt.Errorf("audit of %s failed: %s%s", scope, r.Count(), how)
	}
	return fmt.Sprintf("Audit of %s passed: %s%s.", scope, r.Count(), how), nil
}
