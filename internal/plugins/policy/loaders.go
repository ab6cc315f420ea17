package policy

import "strings"

// Loader reports whether an environment variable of that name changes
// which program a command line runs, or what code it loads: the search
// path (PATH), the home and configuration folders a package runner reads
// its registry from (HOME, XDG_CONFIG_HOME, npm_config_*), the dynamic
// loader (LD_PRELOAD, DYLD_*), interpreters' start-up options and module
// paths (NODE_OPTIONS, PYTHONPATH, PERL5OPT, RUBYOPT, JAVA_TOOL_OPTIONS),
// a shell's start-up file (BASH_ENV, ENV), and where and through what
// packages are downloaded (proxies, CA bundles, registries). A server
// admitted by its command line alone may set none of them: mcp.allow's
// "npx -y @acme/*" is about what runs, and these decide it.
//
// The list errs wide: a variable named here that only carries data costs
// the team a pattern naming the server itself, while one missing lets a
// plugin run code of its choosing under a rule that names another.
func Loader(name string) bool {
	n := strings.ToUpper(name)
	switch n {
	case "PATH", "HOME", "USERPROFILE", "SHELL", "ENV", "BASH_ENV", "ZDOTDIR", "IFS", "CDPATH",
		"SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "TMPDIR", "CLASSPATH", "VIRTUAL_ENV",
		"OPENSSL_CONF", "OPENSSL_MODULES", "SSL_CERT_FILE", "SSL_CERT_DIR", "GCONV_PATH", "LOCPATH",
		"NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "LOCALDOMAIN":
		return true
	}
	for _, p := range []string{
		"LD_", "DYLD_", "XDG_", "NODE_", "NPM_", "NPX_", "YARN_", "PNPM_", "BUN_", "DENO_", "COREPACK_",
		"PYTHON", "PIP_", "PIPX_", "UV_", "CONDA", "POETRY_", "RUBY", "GEM_", "BUNDLE", "PERL", "JAVA_",
		"_JAVA_", "JDK_", "MAVEN_", "GRADLE_", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GOENV", "GOROOT",
		"GOBIN", "GONOSUM", "GOPRIVATE", "GOINSECURE", "GOSUMDB", "GOEXPERIMENT", "GOMODCACHE", "GOWORK", "CARGO_", "RUSTUP_", "RUSTC", "DOCKER_", "PODMAN_",
		"CONTAINER", "GIT_", "LUA_", "PHP", "COMPOSER_", "DOTNET_", "NUGET_", "R_", "JULIA_", "ERL_",
		"ELIXIR_", "MIX_", "HEX_", "DART_", "PUB_", "FLUTTER_", "SWIFT", "GHC", "CABAL_", "STACK_",
		"NIX_", "MALLOC_", "GLIBC_", "BASH_FUNC_",
		// Version managers, whose shims pick the program a bare name
		// runs (asdf's and mise's npx, pyenv's python).
		"ASDF_", "MISE_", "RTX_", "PYENV", "NODENV", "RBENV", "NVM_", "VOLTA_", "FNM_", "JENV", "PLENV",
		"SDKMAN", "PROTO_", "DIRENV", "PIXI_", "RYE_", "HATCH_", "N_PREFIX", "TFENV", "GOENV", "AQUA_",
	} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range []string{"PATH", "_OPTIONS", "_OPTS", "OPT", "LIB", "_PRELOAD", "_HOME", "_PROXY",
		"CA_BUNDLE", "_CA_CERTS", "_CONFIG", "_CONFIG_FILE", "RC", "_REGISTRY", "_INDEX_URL", "_MIRROR"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
