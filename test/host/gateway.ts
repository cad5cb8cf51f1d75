import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { HostEnv } from "./host-env.js";
import { NODE_BINARY } from "./host-install.js";
import { extractJson, runOpenclaw, type CliResult } from "./openclaw-cli.js";
import { spawnGroup, stopGroup } from "./processes.js";

/** Options for {@link startGateway}. */
export interface StartGatewayOptions {
  /** Give up waiting for the port after this long. @default 180000 */
  readyTimeoutMs?: number;
}

/** Outcome of one `chat.send` turn. */
export interface ChatTurn {
  runId: string;
  /** `agent.wait`'s answer (`status`: ok | error | timeout, ...). */
  wait: Record<string, unknown>;
  /** Wall time from send to settled, in milliseconds. */
  ms: number;
}

/** A running `openclaw gateway run` on loopback. */
export interface Gateway {
  port: number;
  pid: number;
  /** Milliseconds from spawn until the gateway answered `health`. */
  startMs: number;
  /** Gateway stdout and stderr, as written so far. */
  outputPath: string;
  /** `openclaw gateway call <method> --params <json> --json`, parsed (throws on a non-zero exit). */
  call(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /** Sends one user message with `chat.send` and waits for the run to settle (`agent.wait`). */
  chatSend(sessionKey: string, message: string, timeoutMs?: number): Promise<ChatTurn>;
  /** `sessions.compact` for a session key. */
  sessionsCompact(key: string): Promise<unknown>;
  /** SIGTERM, then SIGKILL the gateway's process group. Idempotent. */
  stop(): Promise<void>;
}

/** Retries `attempt` (a gateway call whose connection can fail while the gateway is busy) until `deadline`. */
async function retryCall<T>(attempt: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Starts `openclaw gateway run --auth token --bind loopback --allow-unconfigured` on a
 * free port with the env's token, and waits until it answers `health`. The caller must
 * `stop()` it in `afterAll` / `finally`; the harness also tracks it for `stopAllGroups()`.
 */
export async function startGateway(env: HostEnv, options: StartGatewayOptions = {}): Promise<Gateway> {
  const port = await freePort();
  const started = Date.now();
  const outputPath = path.join(env.root, "logs", "gateway.out.log");
  const out = createWriteStream(outputPath, { flags: "a", mode: 0o600 });
  const args = [env.host.entry, "gateway", "run", "--auth", "token", "--bind", "loopback", "--allow-unconfigured", "--port", String(port)];
  const child = spawnGroup(NODE_BINARY, args, { env: { ...env.env, OPENCLAW_GATEWAY_PORT: String(port) }, cwd: env.root });
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });
  const pid = child.pid;
  if (pid === undefined) throw new Error("Expected `openclaw gateway run` to start, got no PID");
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await stopGroup(pid);
    out.end();
  };

  const cli = async (args: string[], timeoutMs: number): Promise<CliResult> =>
    runOpenclaw(env, [...args, "--url", `ws://127.0.0.1:${port}`, "--token", env.gatewayToken], { timeoutMs: timeoutMs + 30_000 });

  const call = async (method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<unknown> => {
    const result = await cli(["gateway", "call", method, "--params", JSON.stringify(params), "--json", "--timeout", String(timeoutMs)], timeoutMs);
    const json = extractJson(result.stdout) ?? extractJson(result.stderr);
    if (result.code !== 0) {
      throw new Error(`Expected gateway call ${method} to succeed, got exit ${String(result.code)}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
    }
    return json;
  };

  const deadline = started + (options.readyTimeoutMs ?? 180_000);
  try {
    while (!(await canConnect(port))) {
      if (exited) throw new Error(`Expected the gateway to listen on ${port}, but it exited; see ${outputPath}`);
      if (Date.now() > deadline) throw new Error(`Expected the gateway to listen on ${port} within the timeout; see ${outputPath}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // 2026.4.24 blocks its event loop for a while after listening ("starting channels
    // and sidecars", 70 s on a loaded 2-core box): retry until the handshake goes through.
    await retryCall(() => call("health", {}, 30_000), deadline);
  } catch (error) {
    await stop();
    throw error;
  }
  const startMs = Date.now() - started;

  return {
    port,
    pid,
    startMs,
    outputPath,
    call,
    async chatSend(sessionKey, message, timeoutMs = 600_000) {
      const t0 = Date.now();
      // Same idempotency key on every retry: the gateway dedupes, so a retried send never runs twice.
      const params = { sessionKey, message, idempotencyKey: randomUUID() };
      const ack = (await retryCall(() => call("chat.send", params), t0 + timeoutMs)) as { runId?: string } | undefined;
      const runId = ack?.runId;
      if (!runId) throw new Error(`Expected chat.send to answer a runId, got ${JSON.stringify(ack)}`);
      // A busy gateway (a turn with a big tool output on 2 cores) can miss the CLI's
      // 10 s handshake window: wait in short slices and retry failed connections.
      const deadline = t0 + timeoutMs;
      for (;;) {
        let wait: Record<string, unknown> | undefined;
        try {
          wait = (await call("agent.wait", { runId, timeoutMs: 60_000 }, 60_000)) as Record<string, unknown> | undefined;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          continue;
        }
        if ((wait?.status !== "timeout" && wait?.status !== "pending") || Date.now() > deadline) {
          return { runId, wait: wait ?? {}, ms: Date.now() - t0 };
        }
      }
    },
    sessionsCompact: (key) => call("sessions.compact", { key }, 300_000),
    stop,
  };
}
