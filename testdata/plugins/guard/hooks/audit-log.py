#!/usr/bin/env python3
"""audit-log.py: an after_tool_call hook that records every tool call.

It appends one JSON line per call to audit.log in $QUIVER_PLUGIN_DATA (the
plugin's data folder, which survives updates) and changes nothing.
"""
import json
import os
import sys
import time


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("hook", "run"):
        print("usage: audit-log.py hook|run", file=sys.stderr)
        return 1
    if sys.argv[1] == "hook":
        print("after_tool_call")
        return 0
    payload = json.load(sys.stdin)
    data_dir = os.environ.get("QUIVER_PLUGIN_DATA")
    if data_dir:
        os.makedirs(data_dir, exist_ok=True)
        record = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "conv_id": payload.get("conv_id"),
            "tool": payload.get("tool_name"),
            "recipe": payload.get("recipe_name"),
        }
        with open(os.path.join(data_dir, "audit.log"), "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
    return 0  # empty stdout: no action


if __name__ == "__main__":
    sys.exit(main())
