package claude

import (
	"strings"
	"testing"
)

func TestExecArgv(t *testing.T) {
	vars := map[string]string{"CLAUDE_PLUGIN_ROOT": "/p/a b", "CLAUDE_PLUGIN_DATA": "/d", "CLAUDE_PROJECT_DIR": "/proj"}
	options := map[string]string{"level": "$(reboot) ${CLAUDE_PLUGIN_ROOT}", "key": ""}
	for _, tc := range []struct {
		command string
		args    []string
		want    string // argv joined with |
		err     string
	}{
		{"${CLAUDE_PLUGIN_ROOT}/bin/x", []string{"--data=${CLAUDE_PLUGIN_DATA}", "${CLAUDE_PROJECT_DIR}"}, "/p/a b/bin/x|--data=/d|/proj", ""},
		// A value is text: never expanded again, never read by a shell.
		{"x", []string{"${user_config.level}", "${user_config.key}"}, "x|$(reboot) ${CLAUDE_PLUGIN_ROOT}|", ""},
		// Other variables stay as written, as Claude leaves them.
		{"x", []string{"$HOME", "${HOME}", "${CLAUDE_SESSION_ID}"}, "x|$HOME|${HOME}|${CLAUDE_SESSION_ID}", ""},
		{"x", []string{"${user_config.nope}"}, "", `plugin option "nope" is not set`},
	} {
		argv, err := ExecArgv(tc.command, tc.args, vars, options)
		if got := strings.Join(argv, "|"); got != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("%q %q: %q, %v; want %q, %s", tc.command, tc.args, got, err, tc.want, tc.err)
		}
	}
}

func TestOptionVar(t *testing.T) {
	for key, want := range map[string]string{"level": "CLAUDE_PLUGIN_OPTION_LEVEL", "api-key": "CLAUDE_PLUGIN_OPTION_API_KEY", "Max_Size": "CLAUDE_PLUGIN_OPTION_MAX_SIZE"} {
		if got := OptionVar(key); got != want {
			t.Errorf("OptionVar(%s) = %s; want %s", key, got, want)
		}
	}
}

func TestHeaders(t *testing.T) {
	env := map[string]string{"MY_TOKEN": "t0k", "ANTHROPIC_API_KEY": "sk-ant", "GIT_CONFIG_VALUE_0": "Authorization: x", "NL": "a\r\nX-Evil: 1", "lower": "l"}
	h := Headers(map[string]string{
		"Authorization": "Bearer $MY_TOKEN", "X-Key": "${ANTHROPIC_API_KEY}", "X-Git": "$GIT_CONFIG_VALUE_0",
		"X-Nl": "$NL", "X-Lower": "$lower", "X-Unlisted": "${HOME}", "Content-Type": "application/x-test", "Content-Length": "3",
	}, []string{"MY_TOKEN", "ANTHROPIC_API_KEY", "GIT_CONFIG_VALUE_0", "NL", "lower"}, func(k string) string { return env[k] })
	for name, want := range map[string]string{
		"Authorization": "Bearer t0k", "X-Key": "", "X-Git": "", "X-Nl": "aX-Evil: 1", "X-Lower": "$lower", "X-Unlisted": "",
		"Content-Type": "application/x-test", "Content-Length": "",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %q; want %q", name, got, want)
		}
	}
}
