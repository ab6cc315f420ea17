package plugins

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestConfigRowsHideSecrets: a sensitive value is in no row, shown or as
// JSON data; a plain one is; unset keys say why.
func TestConfigRowsHideSecrets(t *testing.T) {
	c := UserConfig{
		Keys: []ConfigKey{
			{Name: "region", Required: true},
			{Name: "token", Sensitive: true},
			{Name: "units", Default: "metric"},
			{Name: "zone", Required: true},
		},
		Values: map[string]string{"region": "eu", "token": "s3cret"},
	}
	want := map[string]string{"region": "eu", "token": "(set, hidden)", "units": "(default metric)", "zone": "(required, not set)"}
	for _, r := range c.Rows() {
		if strings.Contains(r.Value+r.Shown(), "s3cret") {
			t.Errorf("%s shows the secret", r.Key)
		}
		if r.Shown() != want[r.Key] {
			t.Errorf("%s shown as %q, want %q", r.Key, r.Shown(), want[r.Key])
		}
	}
	if got := c.Missing(); len(got) != 1 || got[0] != "zone" {
		t.Errorf("Missing() = %v, want [zone]", got)
	}
}

// TestConfigTableRow: plugin config's table shows a sensitive value as
// set and hidden, under ConfigHeader.
func TestConfigTableRow(t *testing.T) {
	c := UserConfig{Keys: []ConfigKey{{Name: "token", Sensitive: true, Description: "API token"}}, Values: map[string]string{"token": "s3cret"}}
	got := c.Rows()[0].Row()
	want := []string{"token", "(set, hidden)", "API token"}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(ConfigHeader) {
		t.Errorf("Row() = %q, want %q under %q", got, want, ConfigHeader)
	}
}

// TestParseSettings: KEY=VALUE sets, KEY= unsets (an empty value), and
// anything else is a usage mistake naming the argument.
func TestParseSettings(t *testing.T) {
	set, err := ParseSettings([]string{"region=eu", "token=", "url=https://x/?a=b"})
	if err != nil || len(set) != 3 || set["region"] != "eu" || set["token"] != "" || set["url"] != "https://x/?a=b" {
		t.Errorf("ParseSettings = %v, %v", set, err)
	}
	for _, bad := range []string{"region", "=eu"} {
		if _, err := ParseSettings([]string{bad}); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), strconv.Quote(bad)+" is not KEY=VALUE") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
