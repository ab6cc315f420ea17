package agents

import "testing"

// What Claude Code 2.1.328 does with a settings file holding each of these
// (run for real, a SessionStart hook telling whether it read the file:
// docs/agents.md): skip it whole, or read it.
func TestClaudeSettingsProblem(t *testing.T) {
	for doc, skipped := range map[string]bool{
		`{"cleanupPeriodDays": "abc"}`:                              true,
		`{"cleanupPeriodDays": 30}`:                                 false,
		`{"cleanupPeriodDays": "30"}`:                               true,
		`{"cleanupPeriodDays": 0}`:                                  true,
		`{"cleanupPeriodDays": 1.5}`:                                true,
		`{"desktopSessionCleanupPeriodDays": -1}`:                   true,
		`{"desktopSessionCleanupPeriodDays": 0}`:                    false,
		`{"feedbackSurveyRate": 2}`:                                 true,
		`{"skillListingBudgetFraction": 0}`:                         true,
		`{"skillListingBudgetFraction": 0.5}`:                       false,
		`{"model": 5}`:                                              true,
		`{"model": null}`:                                           true,
		`{"model": "x"}`:                                            false,
		`{"apiKeyHelper": 1}`:                                       true,
		`{"permissions": {"allow": "x"}}`:                           true,
		`{"permissions": "x"}`:                                      true,
		`{"permissions": {"allow": ["x"]}}`:                         false,
		`{"permissions": {"allow": ["Bash", 1]}}`:                   false,
		`{"permissions": {"defaultMode": "zzz"}}`:                   true,
		`{"env": {"A": 1}}`:                                         false,
		`{"env": {"A": "1"}}`:                                       false,
		`{"env": ["A"]}`:                                            true,
		`{"includeCoAuthoredBy": "yes"}`:                            true,
		`{"includeCoAuthoredBy": true}`:                             false,
		`{"statusLine": {"type": "command"}}`:                       true,
		`{"statusLine": {"command": "echo"}}`:                       true,
		`{"statusLine": "echo hi"}`:                                 true,
		`{"statusLine": {"type": "command", "command": "echo hi"}}`: false,
		`{"enabledPlugins": {"a@b": "yes"}}`:                        true,
		`{"enabledPlugins": {"a@b": true}}`:                         false,
		`{"enabledPlugins": {"a@b": ["1.0"]}}`:                      false,
		`{"defaultShell": "zsh"}`:                                   true,
		`{"defaultShell": "bash"}`:                                  false,
		`{"sandbox": {"enabled": "yes"}}`:                           true,
		`{"attribution": "x"}`:                                      true,
		`{"attribution": {"commit": "x"}}`:                          false,
		`{"disableAllHooks": null}`:                                 true,
		`{"strictKnownMarketplaces": 5}`:                            true,
		`{"enabledMcpjsonServers": "foo"}`:                          false,
		`{"effortLevel": "zzz", "bashOutputMaxChars": "x", "strictPluginOnlyCustomization": 5}`: false,
		`{"teammateMode": "zzz"}`:                                                                       false,
		`{"allowedMcpServers": "x"}`:                                                                    false,
		`{"deniedModels": 5, "isolation": "x"}`:                                                         false,
		`{"allowedMarketplaces": null}`:                                                                 false,
		`{"quiverUnknownKey": {"a": [1, 2]}}`:                                                           false,
		`{"extraKnownMarketplaces": {"m": {"source": {"source": "weird"}}}}`:                            true,
		`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "bogus"}]}]}}`:                             false,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "bogus"}]}]}}`:                                   true,
		`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}]}}`: false,
		// The second re-attack's, A3: each makes Claude skip the file.
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}`:                                                                                       true,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": 5}]}]}}`:                                                                         true,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "http"}]}]}}`:                                                                                          true,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "x"}]}]}}`:                                                       true,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "onFailure": "zzz"}]}]}}`:                                                   true,
		`{"hooks": {"PreToolUse": [{"matcher": 5, "hooks": [{"type": "command", "command": "x"}]}]}}`:                                                         true,
		`{"hooks": {"PreToolUse": [{"hooks": "x"}]}}`:                                                                                                         true,
		`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "x", "timeout": 600, "onFailure": "block", "async": false}]}]}}`: false,
		`[]`: true,
		`{}`: false,
	} {
		if got := claudeSettingsProblem([]byte(doc)); (got != "") != skipped {
			t.Errorf("%s: %q; Claude Code skips it: %v", doc, got, skipped)
		}
	}
}
