#!/usr/bin/env bash
# PreToolUse handler for Bash: Claude's input JSON on stdin. Deny with a
# reason through hookSpecificOutput, or print nothing to allow.
# Try it: echo '{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' \
#   | quiver hook test {{NAME}}/hooks.json/PreToolUse.1 --event before_tool_call
input=$(cat)
case "$input" in
*'rm -rf /'*)
	printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf / is not allowed by {{NAME}}"}}'
	;;
esac
exit 0
