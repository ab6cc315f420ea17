// serve-client.mjs: an agent's side of `quiver hook serve`, in Node.js.
//
// Starts one `quiver hook serve` (the command in $QUIVER_BIN, default
// `quiver` on PATH), sends several before_tool_call events at once, matches
// each response to its request by id, reports errors, and shuts down.
// Node 18 or later, no packages: node serve-client.mjs
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A JSON-RPC error response: code and message. */
class RPCError extends Error {
  constructor(code, message) {
    super(`${message} (code ${code})`);
    this.code = code;
    this.rpcMessage = message;
  }
}

/** One `quiver hook serve` process. */
class HookServer {
  constructor(quiver = process.env.QUIVER_BIN || "quiver") {
    // stderr is inherited: quiver's warnings go where the agent's go.
    this.proc = spawn(quiver, ["hook", "serve"], { stdio: ["pipe", "pipe", "inherit"] });
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject}
    // "close" comes after "exit" or a failed start, once stdout is drained.
    this.exited = new Promise((resolve) => this.proc.on("close", (code, signal) => resolve(code ?? signal)));
    this.gone = null; // why no more answers will come, once that is so

    // Responses come back as the requests finish, not in order.
    createInterface({ input: this.proc.stdout }).on("line", (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        console.error(`serve-client: not JSON from quiver: ${line}`);
        return;
      }
      const waiter = this.pending.get(msg.id);
      if (!waiter) return; // an error about a request we cannot tell (id null)
      this.pending.delete(msg.id);
      if (msg.error) waiter.reject(new RPCError(msg.error.code, msg.error.message));
      else waiter.resolve(msg.result);
    });
    // Not started (ENOENT) or exited: whatever is still waiting will not be answered.
    const fail = (why) => {
      this.gone ??= new Error(`quiver hook serve ${why}`);
      for (const waiter of this.pending.values()) waiter.reject(this.gone);
      this.pending.clear();
    };
    this.proc.on("error", (err) => fail(`could not run: ${err.message}`));
    this.proc.stdout.on("close", () => fail("exited before answering"));
    this.proc.stdin.on("error", () => {}); // a broken pipe shows up as the exit above
  }

  /** Send one request; resolves to its result, rejects with RPCError. */
  request(method, params) {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    const msg = { jsonrpc: "2.0", id, method };
    if (params !== undefined) msg.params = params;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.stdin.write(JSON.stringify(msg) + "\n"); // one message per line
    });
  }

  /** Send an event; resolves to what `hook run` prints. */
  run(event, payload, { timeout, failClosed } = {}) {
    const params = { event, payload };
    if (timeout !== undefined) params.timeout = timeout; // "5s", or seconds
    if (failClosed !== undefined) params.fail_closed = failClosed;
    return this.request("run", params);
  }

  /** Ask the server to stop, wait for it, and return its exit code. */
  async close() {
    try {
      await this.request("shutdown");
    } catch {
      // already gone
    }
    this.proc.stdin.end(); // EOF ends the server too
    return this.exited;
  }
}

/** One line for a before_tool_call result. */
function describe(result) {
  switch (result.decision) {
    case "block":
      return `block: ${result.reason} (by ${result.blocked_by})`;
    case "ask":
      return `ask: ${result.reason} (by ${result.asked_by})`;
  }
  return "input" in result ? `allow, with the input ${JSON.stringify(result.input)}` : "allow";
}

const server = new HookServer();
let failed = false;
try {
  await demo(server);
} catch (err) {
  // Not an answer from quiver: it could not start, or it died.
  console.error(`serve-client: ${err.message}`);
  failed = true;
}
const code = await server.close();
console.log(`quiver hook serve exited with ${code}`);
process.exitCode = failed || code !== 0 ? 1 : 0;

/** What an agent does: events at once, a mistake, a list. */
async function demo(server) {
  const commands = ["ls -la", "rm -rf build", "git push --force origin main"];
  // Pipelined: every request is on its way before the first answer.
  const results = await Promise.all(
    commands.map((command) =>
      server.run(
        "before_tool_call",
        { conv_id: "demo", tool_name: "bash", tool_input: { command } },
        { timeout: "10s", failClosed: true },
      ),
    ),
  );
  commands.forEach((command, i) => {
    console.log(`${command}: ${describe(results[i])}`);
    for (const h of results[i].hooks.filter((h) => h.error)) {
      console.log(`  hook ${h.name} ${h.status}: ${h.error}`);
    }
  });

  // A mistake is an error response, and the server keeps going.
  try {
    await server.run("before_tool_cal", {});
  } catch (err) {
    if (!(err instanceof RPCError)) throw err;
    console.log(`error ${err.code}: ${err.rpcMessage}`);
  }

  const hooks = await server.request("list", { kind: "hooks" });
  console.log("hooks: " + hooks.map((h) => h.name + (h.persistent ? " (persistent)" : "")).join(", "));
}
