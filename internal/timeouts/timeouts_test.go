package timeouts

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestDecodeSeconds: a hooks.json handler's timeout, as raw JSON number
// text. Before the rule, 1e-10 truncated to 0 and 1e10 overflowed to a
// negative Duration, and both meant "never killed".
func TestDecodeSeconds(t *testing.T) {
	tests := []struct {
		raw  string
		want time.Duration
		err  string // the error says this, naming the value
	}{
		{"1e-10", 0, "1e-10 seconds rounds to less than 1ms"},
		{"0", 0, "0 seconds is not positive"},
		{"-0", 0, "-0 seconds is not positive"},
		{"-1", 0, "-1 seconds is not positive"},
		{"1e-400", 0, "1e-400 seconds is not positive"},
		{"1e10", 0, "1e10 seconds is too large to be a duration"},
		{"9223372036.854775807", 0, "9223372036.854775807 seconds is too large to be a duration"},
		{"1e400", 0, "1e400 seconds is not finite"},
		{"-1e400", 0, "-1e400 seconds is not finite"},
		{"0.0004", 0, "0.0004 seconds rounds to less than 1ms"},
		{"0.0005", time.Millisecond, ""},
		{"0.001", time.Millisecond, ""},
		{"0.0015", 2 * time.Millisecond, ""},
		{"30", 30 * time.Second, ""},
		{" 10 ", 10 * time.Second, ""},
		{"3600", time.Hour, ""},
		{"3601", time.Hour, ""},
		{"7200", time.Hour, ""},
		{"9223372036", time.Hour, ""},
		{`"5"`, 0, `"5" is not a number of seconds`},
		{"true", 0, "true is not a number of seconds"},
		{"", 0, "is not a number of seconds"},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := DecodeSeconds([]byte(tc.raw))
			check(t, got, err, tc.want, tc.err)
		})
	}
}

// TestSecondsNotFinite: NaN and Inf cannot be JSON numbers, but a number
// of seconds read from text elsewhere can spell them.
func TestSecondsNotFinite(t *testing.T) {
	for _, text := range []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "infinity"} {
		got, err := seconds(text)
		check(t, got, err, 0, text+" seconds is not finite")
	}
	if _, err := seconds("abc"); err == nil || !strings.Contains(err.Error(), `"abc" is not a number of seconds`) {
		t.Errorf("abc: %v", err)
	}
}

// TestParse: --timeout and QUIVER_HOOK_TIMEOUT, Go durations.
func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"0s", 0, `"0s" is not positive`},
		{"0", 0, `"0" is not positive`},
		{"-5s", 0, `"-5s" is not positive`},
		{"1ns", 0, `"1ns" rounds to less than 1ms`},
		{"499us", 0, `"499us" rounds to less than 1ms`},
		{"500us", time.Millisecond, ""},
		{"1ms", time.Millisecond, ""},
		{"1500us", 2 * time.Millisecond, ""},
		{"5s", 5 * time.Second, ""},
		{"1h", time.Hour, ""},
		{"2h", time.Hour, ""},
		{"2562047h", time.Hour, ""},
		{"3000000h", 0, `"3000000h" is too large to be a duration`},
		{"-3000000h", 0, `"-3000000h" is not positive`},
		{"abc", 0, `"abc" is not a Go duration`},
		{"5", 0, `"5" is not a Go duration`},
		{"s", 0, `"s" is not a Go duration`},
		{"", 0, `"" is not a Go duration`},
		{"NaNs", 0, `"NaNs" is not a Go duration`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			check(t, got, err, tc.want, tc.err)
		})
	}
}

// TestDecode: a serve request's timeout, a duration string or seconds.
func TestDecode(t *testing.T) {
	tests := []struct {
		raw  string
		want time.Duration
		err  string
	}{
		{`"5s"`, 5 * time.Second, ""},
		{`"1ns"`, 0, `"1ns" rounds to less than 1ms`},
		{`"2h"`, time.Hour, ""},
		{`"soon"`, 0, `"soon" is not a Go duration`},
		{`0.5`, 500 * time.Millisecond, ""},
		{`1e-10`, 0, "1e-10 seconds rounds to less than 1ms"},
		{`1e10`, 0, "1e10 seconds is too large to be a duration"},
		{`1e400`, 0, "1e400 seconds is not finite"},
		{`0`, 0, "0 seconds is not positive"},
		{`3601`, time.Hour, ""},
		{`null`, 0, "null is neither a duration"},
		{`{"s":5}`, 0, `{"s":5} is neither a duration`},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := Decode([]byte(tc.raw))
			check(t, got, err, tc.want, tc.err)
		})
	}
}

// TestBound: the rule itself, and OrDefault for timeouts handed over by
// code, which never means "no timeout" either.
func TestBound(t *testing.T) {
	tests := []struct {
		in, want, orDefault time.Duration
	}{
		{0, 0, Default},
		{-time.Second, 0, Default},
		{math.MinInt64, 0, Default},
		{time.Nanosecond, 0, Default},
		{499 * time.Microsecond, 0, Default},
		{500 * time.Microsecond, time.Millisecond, time.Millisecond},
		{5 * time.Second, 5 * time.Second, 5 * time.Second},
		{time.Hour + 1, time.Hour, time.Hour},
		{math.MaxInt64, time.Hour, time.Hour},
	}
	for _, tc := range tests {
		got, err := Bound(tc.in)
		if got != tc.want || (err == nil) != (tc.want != 0) {
			t.Errorf("Bound(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got := OrDefault(tc.in); got != tc.orDefault {
			t.Errorf("OrDefault(%v) = %v; want %v", tc.in, got, tc.orDefault)
		}
	}
}

func check(t *testing.T, got time.Duration, err error, want time.Duration, wantErr string) {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Errorf("error %v; want %v", err, want)
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
		t.Errorf("got %v, %v; want an error saying %q", got, err, wantErr)
	case got != want:
		t.Errorf("got %v; want %v", got, want)
	}
	if got < 0 || (err == nil && (got < Min || got > Max)) {
		t.Errorf("got %v: outside [%v, %v]", got, Min, Max)
	}
}
