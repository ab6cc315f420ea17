package claude

import (
	"net/http"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// HTTPSkipped reports the events Claude Code sends no http handler on.
func HTTPSkipped(claudeEvent string) bool {
	return claudeEvent == "SessionStart" || claudeEvent == "Setup"
}

// headerVar is a variable in a header value, as Claude Code finds them:
// upper-case names only.
var headerVar = lazy.Regexp{Expr: `\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)`}

// ignoredHeaders are set by the request itself: a handler's value for
// them is dropped (Claude Code works out the length from the body).
var ignoredHeaders = []string{"Content-Length", "Transfer-Encoding", "Host", "Connection"}

// Headers are the headers an http handler's request carries:
// Content-Type: application/json, then the handler's own (which may
// replace it), each $VAR or ${VAR} filled from getenv only when allowed
// lists VAR and it is no credential (format.CredentialVar), else empty;
// CR, LF and NUL are removed from the result, as Claude Code removes
// them. The values may hold secrets: never print them.
func Headers(own map[string]string, allowed []string, getenv func(string) string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	names := make([]string, 0, len(own))
	for name := range own {
		names = append(names, name)
	}
	slices.Sort(names) // a map's order must not decide which of two spellings wins
	for _, name := range names {
		if slices.ContainsFunc(ignoredHeaders, func(s string) bool { return strings.EqualFold(s, name) }) {
			continue
		}
		v := headerVar.Get().ReplaceAllStringFunc(own[name], func(m string) string {
			sub := headerVar.Get().FindStringSubmatch(m)
			name := sub[1] + sub[2]
			if !slices.Contains(allowed, name) || format.CredentialVar(name) {
				return ""
			}
			return getenv(name)
		})
		h.Set(name, strings.NewReplacer("\r", "", "\n", "", "\x00", "").Replace(v))
	}
	return h
}
