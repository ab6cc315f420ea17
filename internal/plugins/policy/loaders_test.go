package policy

import "testing"

func TestLoader(t *testing.T) {
	for _, name := range []string{
		"PATH", "path", "HOME", "NODE_OPTIONS", "NODE_PATH", "npm_config_registry", "NPM_CONFIG_PREFIX",
		"LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "PYTHONSTARTUP",
		"PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "BASH_ENV",
		"ENV", "XDG_CONFIG_HOME", "HTTPS_PROXY", "https_proxy", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
		"SSL_CERT_FILE", "UV_INDEX_URL", "PIP_INDEX_URL", "GOFLAGS", "GOPROXY", "DOCKER_HOST", "GIT_EXEC_PATH",
		"BUN_INSTALL", "DENO_DIR", "CLASSPATH", "BASH_FUNC_npx%%",
		"ASDF_DATA_DIR", "MISE_DATA_DIR", "PYENV_VERSION", "NODENV_VERSION", "NVM_DIR", "VOLTA_HOME",
	} {
		if !Loader(name) {
			t.Errorf("Loader(%q) = false", name)
		}
	}
	for _, name := range []string{"GITHUB_TOKEN", "GOOGLE_API_KEY", "OPENAI_API_KEY", "LOG_LEVEL", "DEBUG",
		"ACME_API_URL", "TFE_TOKEN", "CONTEXT7_API_KEY", "GOPHER_NAME"} {
		if Loader(name) {
			t.Errorf("Loader(%q) = true", name)
		}
	}
}
