// Package timeouts holds the one rule every hook timeout obeys, wherever
// it comes from: `--timeout`, QUIVER_HOOK_TIMEOUT, a hooks.json handler's
// "timeout" or a serve request's (SPEC §8). A timeout counts in whole
// milliseconds, from Min to Max. A value that is not positive, not
// finite, too large to be a time.Duration at all, or that rounds below
// Min is an error naming it, never "no timeout"; one above Max is capped
// at Max. No input reaches a process without passing through Bound.
//
// It stands alone, below hooks/claude (which reads hooks.json), proc and
// hooks (which run with the result) and cmd (which reads flags, the
// environment and serve requests), so that each source takes the same
// path.
package timeouts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/safefs"
)

const (
	// Min is the shortest timeout: a value that rounds below it is
	// refused, since a zero or a nanosecond was never meant as a limit.
	Min = time.Millisecond
	// Max is the longest: a longer value is cut to it, not refused.
	Max = time.Hour
	// Default is a hook's timeout when nothing sets one.
	Default = 30 * time.Second
)

// Bound applies the rule to d: d rounded to the millisecond and capped at
// Max, or an error when d is not positive or rounds below Min.
func Bound(d time.Duration) (time.Duration, error) {
	return bound(d, d.String())
}

// bound is Bound with the value named as its source wrote it.
func bound(d time.Duration, what string) (time.Duration, error) {
	switch {
	case d <= 0:
		return 0, fmt.Errorf("%s is not positive", what)
	case d > Max:
		return Max, nil
	}
	if r := d.Round(Min); r >= Min {
		return r, nil
	}
	return 0, tooShort(what)
}

func tooShort(what string) error { return fmt.Errorf("%s rounds to less than %s", what, Min) }

// OrDefault is d bounded, or Default when d is not a timeout at all. It is
// for timeouts handed over by other code, such as an Executor's zero
// value; input goes through Parse or Decode, which say what is wrong.
func OrDefault(d time.Duration) time.Duration {
	if b, err := Bound(d); err == nil {
		return b
	}
	return Default
}

// Parse reads a Go duration ("5s", "500ms"), as `--timeout` and
// QUIVER_HOOK_TIMEOUT write it, and bounds it.
func Parse(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err == nil:
		return bound(d, strconv.Quote(s))
	case durationShape.Get().MatchString(s) && !strings.HasPrefix(s, "-"):
		// Well formed, but more than a Duration holds, like 1e10 seconds.
		return 0, fmt.Errorf("%q is too large to be a duration (the most is about 292 years)", s)
	case durationShape.Get().MatchString(s):
		return 0, fmt.Errorf("%q is not positive", s)
	}
	return 0, fmt.Errorf("%q is not a Go duration", s)
}

// durationShape is time.ParseDuration's grammar, to tell a value too
// large for a Duration from one that is no duration at all: both are
// its "invalid duration". Compiled at first use (an error's), not by every
// run's package initialisation.
var durationShape = lazy.Regexp{Expr: `^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`}

// DecodeSeconds reads a JSON number of seconds, as a hooks.json handler
// writes its timeout, and bounds it. Any other JSON value is an error.
func DecodeSeconds(raw []byte) (time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	if !jsonNumber(raw) {
		return 0, fmt.Errorf("%s is not a number of seconds", safefs.Excerpt(raw, 40))
	}
	return seconds(string(raw))
}

// Decode reads a serve request's timeout: a JSON string holding a Go
// duration, or a JSON number of seconds as agents' own settings write
// it, and bounds it.
func Decode(raw []byte) (time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	switch {
	case len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
		return Parse(s)
	case jsonNumber(raw):
		return seconds(string(raw))
	}
	return 0, fmt.Errorf("%s is neither a duration like \"5s\" nor a number of seconds", safefs.Excerpt(raw, 40))
}

// jsonNumber reports whether raw is one JSON number.
func jsonNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') && json.Valid(raw)
}

// seconds reads a decimal number of seconds ("30", "0.5", "1e10"; also
// "NaN" and "Inf", which ParseFloat accepts and the rule refuses) and
// bounds it. Every check happens on the float, before a conversion
// that could overflow.
func seconds(text string) (time.Duration, error) {
	what := text + " seconds"
	s, err := strconv.ParseFloat(text, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%q is not a number of seconds", text)
	case math.IsNaN(s) || math.IsInf(s, 0):
		// ParseFloat gives ±Inf (and ErrRange) for 1e400.
		return 0, fmt.Errorf("%s is not finite", what)
	case s <= 0:
		// Also what underflows to zero (1e-400).
		return 0, fmt.Errorf("%s is not positive", what)
	}
	ns := math.Round(s * float64(time.Second))
	if ns >= math.MaxInt64 { // 2^63 as a float: a Duration cannot hold it
		return 0, fmt.Errorf("%s is too large to be a duration (the most is about 292 years)", what)
	}
	if ns == 0 {
		return 0, tooShort(what) // positive, yet not even a nanosecond
	}
	return bound(time.Duration(ns), what)
}
