package format

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestHandlerTypes: each handler type's fields are read, checked and kept
// (exec form, onFailure, statusMessage, once, http, prompt/agent/mcp_tool),
// and a value quiver cannot trust makes that handler invalid, never the
// whole file.
func TestHandlerTypes(t *testing.T) {
	tests := []struct {
		name, handler, problem string
		check                  func(t *testing.T, h Handler)
	}{
		{name: "exec form", handler: `{"type":"command","command":"node","args":["${CLAUDE_PLUGIN_ROOT}/x.js","${user_config.level}"],"onFailure":"block","statusMessage":"checking","once":true}`,
			check: func(t *testing.T, h Handler) {
				if !h.Exec() || len(h.Args) != 2 || !h.BlocksOnFailure() || h.StatusMessage != "checking" {
					t.Errorf("fields lost: %+v", h)
				}
			}},
		{name: "exec form without arguments", handler: `{"type":"command","command":"/bin/true","args":[]}`,
			check: func(t *testing.T, h Handler) {
				if !h.Exec() {
					t.Error("args: [] is the exec form")
				}
			}},
		{name: "shell form", handler: `{"type":"command","command":"x.sh","onFailure":"continue"}`,
			check: func(t *testing.T, h Handler) {
				if h.Exec() || h.BlocksOnFailure() {
					t.Errorf("%+v", h)
				}
			}},
		{name: "user_config in a shell command", handler: `{"type":"command","command":"x.sh --level ${user_config.level}"}`,
			problem: "a shell-form command may not use ${user_config.level}"},
		{name: "bad onFailure", handler: `{"type":"command","command":"x","onFailure":"ignore"}`, problem: `onFailure "ignore" is not continue or block`},
		{name: "control characters in statusMessage", handler: `{"type":"command","command":"x","statusMessage":"a\u001b[2Jb"}`, problem: "statusMessage"},
		{name: "NUL in args", handler: `{"type":"command","command":"x","args":["a\u0000"]}`, problem: "args[0] holds a NUL byte"},
		{name: "http", handler: `{"type":"http","url":"https://hooks.example/pre","headers":{"Authorization":"Bearer $MY_TOKEN"},"allowedEnvVars":["MY_TOKEN"],"timeout":3}`,
			check: func(t *testing.T, h Handler) {
				if h.URL != "https://hooks.example/pre" || h.Headers["Authorization"] != "Bearer $MY_TOKEN" || len(h.AllowedEnvVars) != 1 {
					t.Errorf("fields lost: %+v", h)
				}
			}},
		{name: "http without url", handler: `{"type":"http"}`, problem: `http handler has no "url"`},
		{name: "file url", handler: `{"type":"http","url":"file:///etc/passwd"}`, problem: "is not http:// or https://"},
		{name: "url without host", handler: `{"type":"http","url":"http:///x"}`, problem: "names no host"},
		{name: "url with a password", handler: `{"type":"http","url":"https://u:p@hooks.example/"}`, problem: "holds a user name or password"},
		{name: "bad header name", handler: `{"type":"http","url":"http://127.0.0.1/","headers":{"X Bad":"1"}}`, problem: `header name "X Bad" is not a header name`},
		{name: "header value on two lines", handler: `{"type":"http","url":"http://127.0.0.1/","headers":{"X-A":"1\r\nX-B: 2"}}`, problem: "a value is one line"},
		{name: "bad variable name", handler: `{"type":"http","url":"http://127.0.0.1/","allowedEnvVars":["A-B"]}`, problem: `allowedEnvVars: "A-B" is not a variable name`},
		{name: "prompt", handler: `{"type":"prompt","prompt":"Is $ARGUMENTS safe?","model":"claude-haiku","once":true,"extra":1,"timeout":30}`,
			problem: "needs Claude Code's model",
			check: func(t *testing.T, h Handler) {
				if !h.NeedsClaude() || string(h.Native) != `{"model":"claude-haiku","prompt":"Is $ARGUMENTS safe?","timeout":30,"type":"prompt"}` {
					t.Errorf("Native = %s", h.Native)
				}
			}},
		{name: "agent", handler: `{"type":"agent","prompt":"verify"}`, problem: "needs Claude Code's model",
			check: func(t *testing.T, h Handler) {
				if string(h.Native) != `{"prompt":"verify","type":"agent"}` {
					t.Errorf("Native = %s", h.Native)
				}
			}},
		{name: "mcp_tool", handler: `{"type":"mcp_tool","server":"s","tool":"t","input":{"path":"${tool_input.file_path}"},"onFailure":"block"}`,
			problem: "needs Claude Code's MCP client",
			check: func(t *testing.T, h Handler) {
				if string(h.Native) != `{"input":{"path":"${tool_input.file_path}"},"onFailure":"block","server":"s","tool":"t","type":"mcp_tool"}` {
					t.Errorf("Native = %s", h.Native)
				}
			}},
		{name: "prompt without prompt", handler: `{"type":"prompt"}`, problem: `prompt handler has no "prompt"`},
		{name: "mcp_tool input not an object", handler: `{"type":"mcp_tool","server":"s","tool":"t","input":[1]}`, problem: `mcp_tool handler: "input" must be a object`},
		{name: "unknown type", handler: `{"type":"script","command":"x"}`, problem: `handler type "script" is not one of command, http, prompt, agent, mcp_tool`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig(fmt.Appendf(nil, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[%s,{"type":"command","command":"other.sh"}]}]}}`, tc.handler))
			if err != nil {
				t.Fatalf("the file is refused (%v); only the handler may be", err)
			}
			h := c.Handlers[0]
			if tc.problem == "" && h.Problem != "" || !strings.Contains(h.Problem, tc.problem) {
				t.Errorf("Problem = %q; want %q", h.Problem, tc.problem)
			}
			if h.Problem != "" && !h.NeedsClaude() && h.Native != nil {
				t.Errorf("an invalid handler has a Native definition: %s", h.Native)
			}
			if tc.check != nil {
				tc.check(t, h)
			}
			if c.Handlers[1].Problem != "" {
				t.Errorf("the neighbour changed: %+v", c.Handlers[1])
			}
		})
	}
	for _, bad := range []string{`{"type":"command","command":"x","args":"a b"}`, `{"type":"http","url":"http://x/","headers":["A"]}`,
		`{"type":"http","url":"http://x/","allowedEnvVars":"A"}`, `{"type":"command","command":"x","once":"yes"}`, `{"type":"command","command":"x","onFailure":1}`} {
		if _, err := ParseConfig(fmt.Appendf(nil, `{"hooks":{"Stop":[{"hooks":[%s]}]}}`, bad)); err == nil {
			t.Errorf("%s: a field of the wrong JSON type must refuse the file", bad)
		}
	}
}

// TestNativeNeedsEveryCheck: a prompt handler whose matcher or condition
// is wrong is invalid for that reason, and is not handed to Claude.
func TestNativeNeedsEveryCheck(t *testing.T) {
	c, err := ParseConfig([]byte(`{"hooks":{"PreToolUse":[{"matcher":"(","hooks":[{"type":"prompt","prompt":"p"}]}],
		"Notification":[{"hooks":[{"type":"agent","prompt":"p"}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Handlers[1]; h.NeedsClaude() || !strings.HasPrefix(h.Problem, "matcher") {
		t.Errorf("bad matcher: NeedsClaude %v, Problem %q", h.NeedsClaude(), h.Problem)
	}
	// An event quiver has no name for is still Claude's to run.
	if h := c.Handlers[0]; !h.NeedsClaude() || !json.Valid(h.Native) {
		t.Errorf("Notification agent handler: NeedsClaude %v, Problem %q", h.NeedsClaude(), h.Problem)
	}
}

func TestCredentialVar(t *testing.T) {
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY": true, "ANTHROPIC_AUTH_TOKEN": true, "CLAUDE_CODE_OAUTH_TOKEN": true, "QUIVER_GIT_TOKEN": true,
		"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_VALUE_0": true, "INPUT_GITHUB_TOKEN": true, "github_token": true,
		"GITHUB_TOKEN": true, "GH_TOKEN": true, "NPM_TOKEN": true, "NODE_AUTH_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"AWS_SESSION_TOKEN": true, "CARGO_REGISTRIES_MY_TOKEN": true, "GOOGLE_APPLICATION_CREDENTIALS": true,
		"OPENAI_API_KEY": true, "DOCKER_AUTH_CONFIG": true, "PYPI_PASSWORD": true,
		"MY_TOKEN": false, "HOOK_SECRET": false, "HOME": false, "USER": false, "GITHUB_REPOSITORY": false, "AWS_REGION": false,
	} {
		if got := CredentialVar(name); got != want {
			t.Errorf("CredentialVar(%s) = %v; want %v", name, got, want)
		}
	}
}

// TestCredentialVarCIRunners (attack28): Claude Code runs in CI
// (claude-code-action on GitHub Actions), where the runner's own tokens
// sit in the environment: ACTIONS_ID_TOKEN_REQUEST_TOKEN mints OIDC
// tokens that cloud roles trust, ACTIONS_RUNTIME_TOKEN reaches the
// runner's cache and artifacts, CI_JOB_TOKEN is GitLab's job credential.
// An http handler that lists them in allowedEnvVars sent them in a
// header: they are credential-like by any reading of SPEC §15.
func TestCredentialVarCIRunners(t *testing.T) {
	for _, name := range []string{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_RUNTIME_TOKEN", "CI_JOB_TOKEN",
		"CI_JOB_JWT", "VAULT_TOKEN", "BUILDKITE_AGENT_ACCESS_TOKEN", "CIRCLE_TOKEN", "HOMEBREW_GITHUB_API_TOKEN"} {
		if !CredentialVar(name) {
			t.Errorf("CredentialVar(%s) = false; want true", name)
		}
	}
}

// TestNativeKeysAsClaudeReadsThem (attack28b): Claude reads a handler's
// keys case-sensitively, so "Type" is nothing to it. A handler that
// quiver takes for a prompt because of a "Type" key must not be handed to
// Claude with its own "type" ("command"), nor with an "if" other than the
// one quiver checked: written into settings.json, a command handler with
// no command makes Claude skip the whole file (the person's permissions
// and quiver's own entries with it).
func TestNativeKeysAsClaudeReadsThem(t *testing.T) {
	for _, doc := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","Type":"prompt","prompt":"ok?"}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"agent","TYPE":"prompt","prompt":"ok?","continueOnBlock":true}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"prompt","if":"Bash(rm *","IF":"Bash(ls)","prompt":"ok?"}]}]}}`,
	} {
		c, err := ParseConfig([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range c.Handlers {
			if h.Native == nil {
				continue
			}
			var exact map[string]any
			if err := json.Unmarshal(h.Native, &exact); err != nil {
				t.Fatal(err)
			}
			if exact["if"] == nil {
				exact["if"] = ""
			}
			if exact["type"] != h.Type || exact["if"] != h.If {
				t.Errorf("%s\nquiver reads type %q, if %q; hands Claude %s", doc, h.Type, h.If, h.Native)
			}
		}
	}
}
