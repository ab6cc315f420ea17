#!/usr/bin/env bash
# persistent-guard.sh: a before_tool_call hook that blocks "rm -rf", usable
# both one-shot and persistent.
#
#   persistent-guard.sh hook    -> "before_tool_call persistent"
#   persistent-guard.sh run     -> one payload on stdin; exit 2 blocks
#   persistent-guard.sh serve   -> one {"id":N,"payload":{...}} line in per
#                                  event, one {"id":N,...} line out, until EOF
#
# It needs nothing but bash. The price is that it matches the raw JSON text
# instead of parsing it: it looks for "command": "...rm -rf" anywhere in
# the payload, an escaped quote (\") inside the command ends the match early,
# and JSON escapes such as \u0020 are not decoded. That is fine for an
# example and for catching mistakes; a guard that must not be fooled should
# parse the JSON (see persistent-guard.py, or use jq).
set -uo pipefail

rm_rf='"command"[[:space:]]*:[[:space:]]*"[^"]*rm[[:space:]]+-[a-zA-Z]*(rf|fr)'
reason='rm -rf is not allowed'

# blocks TEXT: succeeds when the payload TEXT should be blocked.
blocks() {
	[[ $1 =~ $rm_rf ]]
}

case "${1:-}" in
hook)
	echo "before_tool_call persistent"
	;;
run)
	if blocks "$(cat)"; then
		echo "$reason" >&2
		exit 2 # block; stderr is the reason
	fi
	;; # exit 0 with no output: no action
serve)
	# quiver writes {"id":N,"payload":{...}}, the id first. Every answer
	# must carry that id, on one line. bash's echo writes at once, so
	# nothing is left sitting in a buffer.
	while IFS= read -r line; do
		if [[ ! $line =~ ^\{\"id\":[[:space:]]*([0-9]+) ]]; then
			echo "persistent-guard: ignoring a line without an id" >&2
			continue
		fi
		id=${BASH_REMATCH[1]}
		if blocks "$line"; then
			# The same block as exit 2 in run mode; the reason is a fixed
			# string here, so it needs no JSON escaping.
			echo "{\"id\":$id,\"exit\":2,\"stderr\":\"$reason\"}"
		else
			echo "{\"id\":$id,\"result\":null}" # no action
		fi
	done
	;; # stdin ended: the server is gone, so are we
*)
	echo "usage: $0 hook|run|serve" >&2
	exit 1
	;;
esac
