#!/usr/bin/env python3
"""serve-client.py: an agent's side of `quiver hook serve`, in Python.

Starts one `quiver hook serve` (the command in $QUIVER_BIN, default
`quiver` on PATH), sends several before_tool_call events at once, matches
each response to its request by id, reports errors, and shuts down.
Standard library only.
"""
import itertools
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout


class RPCError(Exception):
    """A JSON-RPC error response: code and message."""

    def __init__(self, code, message):
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message


class HookServer:
    """One `quiver hook serve` process; safe to use from several threads."""

    def __init__(self, quiver=None):
        quiver = quiver or os.environ.get("QUIVER_BIN") or "quiver"
        # stderr is inherited: quiver's warnings go where the agent's go.
        self.proc = subprocess.Popen(
            [quiver, "hook", "serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, encoding="utf-8", bufsize=1)
        self.ids = itertools.count(1)
        self.pending = {}  # id -> Future
        self.gone = False  # quiver's stdout is closed: no more answers
        self.lock = threading.Lock()  # guards pending, gone and writes to stdin
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def request(self, method, params=None):
        """Send one request; return a Future for its result."""
        fut = Future()
        with self.lock:
            if self.gone:
                fut.set_exception(ConnectionError("quiver hook serve exited before answering"))
                return fut
            request_id = next(self.ids)
            self.pending[request_id] = fut
            msg = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None:
                msg["params"] = params
            try:
                # One message per line, sent at once.
                self.proc.stdin.write(json.dumps(msg) + "\n")
                self.proc.stdin.flush()
            except (OSError, ValueError) as e:
                del self.pending[request_id]
                fut.set_exception(ConnectionError(f"quiver hook serve is gone: {e}"))
        return fut

    def run(self, event, payload, timeout=None, fail_closed=None):
        """Send an event; the Future's result is what `hook run` prints."""
        params = {"event": event, "payload": payload}
        if timeout is not None:
            params["timeout"] = timeout  # "5s", or a number of seconds
        if fail_closed is not None:
            params["fail_closed"] = fail_closed
        return self.request("run", params)

    def _read(self):
        # Responses come back as the requests finish, not in order.
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
                request_id = msg.get("id")
            except (ValueError, AttributeError):
                print(f"serve-client: not a JSON-RPC message: {line!r}", file=sys.stderr)
                continue
            with self.lock:
                fut = self.pending.pop(request_id, None)
            if fut is None:
                continue  # an error about a request we cannot tell (id null)
            if "error" in msg:
                err = msg["error"]
                fut.set_exception(RPCError(err.get("code"), err.get("message")))
            else:
                fut.set_result(msg.get("result"))
        # EOF: quiver exited. Whatever is still waiting will not be answered.
        with self.lock:
            self.gone = True
            pending, self.pending = self.pending, {}
        for fut in pending.values():
            fut.set_exception(ConnectionError("quiver hook serve exited before answering"))

    def close(self, timeout=10):
        """Ask the server to stop, wait for it, and return its exit code."""
        try:
            self.request("shutdown").result(timeout=timeout)
        except (ConnectionError, RPCError, FutureTimeout):
            pass  # already gone, or stuck: EOF and wait below
        try:
            self.proc.stdin.close()  # EOF ends the server too
        except OSError:
            pass  # it exited with our last line unread
        code = self.proc.wait(timeout=timeout)
        self.reader.join(timeout=timeout)
        return code


def describe(result):
    """One line for a before_tool_call result."""
    decision = result["decision"]
    if decision == "block":
        return f"block: {result['reason']} (by {result['blocked_by']})"
    if decision == "ask":
        return f"ask: {result['reason']} (by {result['asked_by']})"
    if "input" in result:
        return f"allow, with the input {json.dumps(result['input'])}"
    return "allow"


def main():
    try:
        server = HookServer()
    except OSError as e:
        print(f"serve-client: cannot start quiver: {e}", file=sys.stderr)
        return 1
    failed = False
    try:
        demo(server)
    except (ConnectionError, FutureTimeout) as e:
        # Not an answer from quiver: it died, or hung.
        print(f"serve-client: {e or 'no answer in time'}", file=sys.stderr)
        failed = True
    code = server.close()
    print(f"quiver hook serve exited with {code}")
    return 1 if failed or code != 0 else 0


def demo(server):
    """What an agent does: events at once, a mistake, a list."""
    commands = ["ls -la", "rm -rf build", "git push --force origin main"]
    # Pipelined: every request is on its way before the first answer.
    calls = [(command, server.run(
        "before_tool_call",
        {"conv_id": "demo", "tool_name": "bash", "tool_input": {"command": command}},
        timeout="10s", fail_closed=True)) for command in commands]
    for command, fut in calls:
        result = fut.result(timeout=60)
        print(f"{command}: {describe(result)}")
        for hook in result["hooks"]:
            if "error" in hook:
                print(f"  hook {hook['name']} {hook['status']}: {hook['error']}")

    # A mistake is an error response, and the server keeps going.
    try:
        server.run("before_tool_cal", {}).result(timeout=60)
    except RPCError as e:
        print(f"error {e.code}: {e.message}")

    hooks = server.request("list", {"kind": "hooks"}).result(timeout=60)
    print("hooks: " + ", ".join(
        h["name"] + (" (persistent)" if h.get("persistent") else "") for h in hooks))


if __name__ == "__main__":
    sys.exit(main())
