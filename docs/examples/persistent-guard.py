#!/usr/bin/env python3
"""persistent-guard.py: a before_tool_call hook, usable one-shot and persistent.

It blocks "rm -rf", asks the user before a force-push, and lets everything
else through.

    persistent-guard.py hook    -> "before_tool_call persistent"
    persistent-guard.py run     -> one payload on stdin, its result on stdout
    persistent-guard.py serve   -> one {"id": N, "payload": {...}} line in per
                                   event, one {"id": N, ...} line out, until EOF

Only the standard library is used. Anything slow to set up (a model, a
rules file, a connection) belongs at the top: in serve mode it is paid
once, not at every event.
"""
import json
import re
import sys
import traceback

RM_RF = re.compile(r"\brm\s+-[a-zA-Z]*(rf|fr)")
FORCE_PUSH = re.compile(r"\bgit\s+push\b.*\s(--force|-f)\b")


def decide(payload):
    """Return the result `run` prints for payload, or None for no action."""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return None
    if RM_RF.search(command):
        return {"blocked": True, "reason": "rm -rf is not allowed"}
    if FORCE_PUSH.search(command):
        return {"ask": True, "reason": "a force-push rewrites shared history",
                "notice": "persistent-guard asked before a force-push"}
    return None


def serve():
    # One request at a time: quiver waits for each answer before it sends
    # the next line, so a plain loop is enough.
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
            request_id = msg["id"]
        except (ValueError, KeyError, TypeError):
            print("persistent-guard: ignoring a line without an id", file=sys.stderr, flush=True)
            continue
        try:
            answer = {"id": request_id, "result": decide(msg.get("payload") or {})}
        except Exception:
            # A failure of this event only, as a crash of `run` would be;
            # the process keeps serving the next ones.
            answer = {"id": request_id, "exit": 1, "stderr": traceback.format_exc()}
        # One line per answer, flushed: a pipe is block-buffered, and an
        # answer left in the buffer is a timeout.
        print(json.dumps(answer), flush=True)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "hook":
        print("before_tool_call persistent")
    elif mode == "run":
        result = decide(json.load(sys.stdin))
        if result is not None:
            print(json.dumps(result))
    elif mode == "serve":
        serve()
    else:
        print("usage: persistent-guard.py hook|run|serve", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
