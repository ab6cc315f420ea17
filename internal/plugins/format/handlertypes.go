package format

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/quiver-cli/quiver/internal/lazy"
)

// Bounds on what a handler may carry: hooks.json is another person's file,
// and these values end up in requests, processes and listings.
const (
	maxArgs          = 1024
	maxHeaders       = 64
	maxHeaderName    = 256
	maxHeaderValue   = 8 << 10
	maxURL           = 8 << 10
	maxEnvNames      = 256
	maxStatusMessage = 1 << 10
	maxNative        = 64 << 10
)

// NativeType reports the handler types only Claude Code can run, since
// they need its model (prompt, agent) or its MCP client (mcp_tool).
func NativeType(t string) bool { return t == "prompt" || t == "agent" || t == "mcp_tool" }

// NeedsClaude is the Problem of a handler of a NativeType: what it needs
// that quiver does not have.
func NeedsClaude(handlerType string) string {
	if handlerType == "mcp_tool" {
		return "needs Claude Code's MCP client"
	}
	return "needs Claude Code's model"
}

// NeedsClaude reports a well-formed handler that only Claude Code can
// run: it is invalid for quiver for that reason alone, and Claude Code
// can be handed its Native definition.
func (h Handler) NeedsClaude() bool {
	return h.Native != nil && NativeType(h.Type) && h.Problem == NeedsClaude(h.Type)
}

// userConfigRef is how Claude Code finds ${user_config.K} in a command.
// Compiled at first use: package initialisation is paid by every run.
var userConfigRef = lazy.Regexp{Expr: `\$\{user_config\.([^}]+)\}`}

// envName reports whether n is a variable name as allowedEnvVars lists
// it: `^[A-Za-z_][A-Za-z0-9_]{0,127}$`, as a loop (that regexp takes a
// millisecond to compile).
func envName(n string) bool {
	if len(n) == 0 || len(n) > 128 || '0' <= n[0] && n[0] <= '9' {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// fieldProblem checks the values of the fields a handler's type reads
// (their JSON types were checked when it was decoded), or "".
func fieldProblem(h Handler) string {
	switch h.OnFailure {
	case "", "continue", "block":
	default:
		return fmt.Sprintf("onFailure %q is not continue or block", h.OnFailure)
	}
	if len(h.StatusMessage) > maxStatusMessage || strings.ContainsFunc(h.StatusMessage, unicode.IsControl) {
		return fmt.Sprintf("statusMessage is longer than %d bytes or holds control characters", maxStatusMessage)
	}
	switch h.Type {
	case "command":
		if strings.ContainsRune(h.Command, 0) {
			return "command holds a NUL byte"
		}
		if !h.Exec() {
			if m := userConfigRef.Get().FindString(h.Command); m != "" {
				return fmt.Sprintf("a shell-form command may not use %s: the shell would read the value as code (use \"args\", or read $CLAUDE_PLUGIN_OPTION_<KEY>)", m)
			}
			return ""
		}
		if len(h.Args) > maxArgs {
			return fmt.Sprintf("args has more than %d items", maxArgs)
		}
		for i, a := range h.Args {
			if strings.ContainsRune(a, 0) {
				return fmt.Sprintf("args[%d] holds a NUL byte", i)
			}
		}
	case "http":
		return httpProblem(h)
	}
	return ""
}

// httpProblem checks an http handler's url, headers and allowedEnvVars.
func httpProblem(h Handler) string {
	if h.URL == "" {
		return `http handler has no "url"`
	}
	if len(h.URL) > maxURL {
		return fmt.Sprintf("url is longer than %d bytes", maxURL)
	}
	u, err := url.Parse(h.URL)
	switch {
	case err != nil:
		return fmt.Sprintf("url %q is not a URL", h.URL)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("url %q is not http:// or https://", h.URL)
	case u.Host == "":
		return fmt.Sprintf("url %q names no host", h.URL)
	case u.User != nil:
		return "url holds a user name or password; send credentials in a header read from allowedEnvVars"
	}
	if len(h.Headers) > maxHeaders {
		return fmt.Sprintf("headers has more than %d names", maxHeaders)
	}
	for name, v := range h.Headers {
		if !headerName(name) {
			return fmt.Sprintf("header name %q is not a header name", name)
		}
		if len(v) > maxHeaderValue || strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Sprintf("header %s: a value is one line of at most %d bytes", name, maxHeaderValue)
		}
	}
	if len(h.AllowedEnvVars) > maxEnvNames {
		return fmt.Sprintf("allowedEnvVars has more than %d names", maxEnvNames)
	}
	for _, n := range h.AllowedEnvVars {
		if !envName(n) {
			return fmt.Sprintf("allowedEnvVars: %q is not a variable name", n)
		}
	}
	return ""
}

// headerName reports an HTTP field name: a token (RFC 9110 §5.6.2).
func headerName(s string) bool {
	if s == "" || len(s) > maxHeaderName {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// nativeKeys are, per type, the keys of Claude Code 2.1.328's schema for
// a handler it runs itself, with the JSON type each takes ("" for any
// object). "once" is left out: Claude ignores it in a plugin's hooks, and
// written into its settings it would start to count.
var nativeKeys = []struct{ handler, key, want string }{
	{"prompt", "type", "string"}, {"prompt", "prompt", "string"}, {"prompt", "if", "string"}, {"prompt", "timeout", "number"},
	{"prompt", "model", "string"}, {"prompt", "continueOnBlock", "bool"}, {"prompt", "statusMessage", "string"},
	{"agent", "type", "string"}, {"agent", "prompt", "string"}, {"agent", "if", "string"}, {"agent", "timeout", "number"},
	{"agent", "model", "string"}, {"agent", "statusMessage", "string"},
	{"mcp_tool", "type", "string"}, {"mcp_tool", "server", "string"}, {"mcp_tool", "tool", "string"}, {"mcp_tool", "input", "object"},
	{"mcp_tool", "if", "string"}, {"mcp_tool", "timeout", "number"}, {"mcp_tool", "onFailure", "string"}, {"mcp_tool", "statusMessage", "string"},
}

// nativeRequired are the keys a handler of each type cannot do without.
var nativeRequired = []struct{ handler, key string }{
	{"prompt", "prompt"}, {"agent", "prompt"}, {"mcp_tool", "server"}, {"mcp_tool", "tool"},
}

// nativeDefinition is the definition of a prompt, agent or mcp_tool
// handler as Claude Code reads it: its known keys, each of the type
// Claude's schema wants, compacted; unknown keys are dropped, as Claude
// drops them. A definition Claude would refuse gives a problem instead.
func nativeDefinition(handlerType string, raw json.RawMessage) (json.RawMessage, string) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, "not an object"
	}
	keep := map[string]json.RawMessage{}
	for _, nk := range nativeKeys {
		if nk.handler != handlerType {
			continue
		}
		key, want := nk.key, nk.want
		v, ok := all[key]
		if !ok || string(v) == "null" {
			continue
		}
		var ok2 bool
		switch want {
		case "string":
			var s string
			ok2 = json.Unmarshal(v, &s) == nil
		case "number":
			var f float64
			ok2 = json.Unmarshal(v, &f) == nil && f > 0
		case "bool":
			var b bool
			ok2 = json.Unmarshal(v, &b) == nil
		case "object":
			var m map[string]json.RawMessage
			ok2 = json.Unmarshal(v, &m) == nil && m != nil
		}
		if !ok2 {
			return nil, fmt.Sprintf("%s handler: %q must be a %s, not %s", handlerType, key, want, excerpt(v))
		}
		keep[key] = v
	}
	for _, nr := range nativeRequired {
		if nr.handler != handlerType {
			continue
		}
		key := nr.key
		var s string
		if json.Unmarshal(keep[key], &s); strings.TrimSpace(s) == "" {
			return nil, fmt.Sprintf("%s handler has no %q", handlerType, key)
		}
	}
	data, err := json.Marshal(keep) // sorted keys, compact values
	if err != nil {
		return nil, err.Error()
	}
	if len(data) > maxNative {
		return nil, fmt.Sprintf("%s handler is larger than %d bytes", handlerType, maxNative)
	}
	return data, ""
}

func excerpt(v json.RawMessage) string {
	s := string(v)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// credentialOwners are the first words of the variables that clouds,
// forges, package registries and model providers read their credentials
// from.
var credentialOwners = []string{
	"AWS", "AZURE", "ARM", "GOOGLE", "GCP", "GCLOUD", "CLOUDSDK",
	"GITHUB", "GH", "GITLAB", "GL", "GITEA", "BITBUCKET",
	"NPM", "NODE", "YARN", "PNPM", "PYPI", "TWINE", "POETRY", "UV", "PIP",
	"CARGO", "GEM", "RUBYGEMS", "NUGET", "MAVEN", "GRADLE", "DOCKER",
	"HF", "HUGGING", "OPENAI", "GEMINI", "MISTRAL", "GROQ",
	"HEROKU", "VERCEL", "NETLIFY", "CLOUDFLARE", "CF", "DIGITALOCEAN", "FLY",
	// CI runners and secret stores, where agents run unattended.
	"ACTIONS", "CI", "CIRCLE", "BUILDKITE", "VAULT", "HOMEBREW",
}

// credentialWords are the words that make a variable of such an owner a
// credential.
var credentialWords = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY",
	"CREDENTIALS", "CREDENTIAL", "AUTH", "PAT", "JWT",
}

// CredentialVar reports a variable an http handler's headers never read,
// even when its allowedEnvVars lists it (SPEC §15). Its name, upper-cased
// and without GitHub Actions' INPUT_ prefix:
//
//   - starts with ANTHROPIC_, CLAUDE_ or QUIVER_: the agent's and quiver's
//     own (ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN, QUIVER_GIT_TOKEN);
//   - starts with GIT_CONFIG_: configuration git takes from the
//     environment, which can carry an http.extraHeader credential;
//   - or names a cloud, forge, registry or model provider in its first
//     word (AWS_, GITHUB_, GH_, NPM_, CARGO_, DOCKER_, OPENAI_, ...) and
//     a credential in a later one (TOKEN, SECRET, PASSWORD, KEY,
//     CREDENTIALS, AUTH, PAT): AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN,
//     NODE_AUTH_TOKEN, CARGO_REGISTRIES_X_TOKEN.
//
// A handler's own variable (MY_HOOK_TOKEN, as Claude Code's documentation
// writes it) is read when listed.
func CredentialVar(name string) bool {
	n := strings.TrimPrefix(strings.ToUpper(name), "INPUT_")
	for _, p := range []string{"ANTHROPIC_", "CLAUDE_", "QUIVER_", "GIT_CONFIG_"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	words := strings.Split(n, "_")
	if !slices.Contains(credentialOwners, words[0]) {
		return false
	}
	for _, w := range words[1:] {
		if slices.Contains(credentialWords, w) {
			return true
		}
	}
	return false
}
