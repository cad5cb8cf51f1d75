import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { promises as fsp } from "node:fs";
import net from "node:net";
import path from "node:path";
import { connectGateway, GatewayRequestError, type GatewayClient } from "./gateway-ws.js";
import type { HostEnv } from "./host-env.js";
import { NODE_BINARY } from "./host-install.js";
import { extractJson, runOpenclaw } from "./openclaw-cli.js";
import { spawnGroup, stopGroup } from "./processes.js";

/** Options for {@link startGateway}. */
export interface StartGatewayOptions {
  /** Give up waiting for the gateway to answer `health` after this long. @default 300000 */
  readyTimeoutMs?: number;
  /** Options for Node itself, before the host's entry (the long haul's `--inspect=127.0.0.1:0`). */
  nodeArgs?: readonly string[];
}

/** Outcome of one `chat.send` turn. */
export interface ChatTurn {
  runId: string;
  /** `agent.wait`'s answer (`status`: ok | error | timeout, ...). */
  wait: Record<string, unknown>;
  /** Wall time from send to settled, in milliseconds. */
  ms: number;
  /**
   * The host queued the message behind work still running in the session (2026.4.24's
   * post-turn maintenance) instead of starting a run for it: `wait` is the queued
   * run's, and the turn settled when the follow-up run that took the message ended.
   */
  queued?: boolean;
}

/** A running `openclaw gateway run` on loopback, driven over one WebSocket from the test process. */
export interface Gateway {
  port: number;
  pid: number;
  /** Milliseconds from spawn until the gateway answered `health`. */
  startMs: number;
  /** Gateway stdout and stderr, as written so far. */
  outputPath: string;
  /** The socket every call goes through (reconnected when it drops). */
  client(): Promise<GatewayClient>;
  /** One gateway method over the socket; resolves with its payload (throws on `ok: false`). */
  call(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /** The same method through `openclaw gateway call` (a CLI process): for comparing with what a user's CLI sees. */
  cliCall(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /** Sends one user message with `chat.send` and waits for the run to settle (`agent.wait`). */
  chatSend(sessionKey: string, message: string, timeoutMs?: number): Promise<ChatTurn>;
  /** `sessions.compact` for a session key. */
  sessionsCompact(key: string): Promise<unknown>;
  /** True while the gateway process runs. */
  running(): boolean;
  /** Closes the socket, then SIGTERM/SIGKILL the gateway's process group. Idempotent. */
  stop(): Promise<void>;
}

/**
 * A free TCP port on 127.0.0.1. Another process can take it between this call and
 * the bind: {@link startGateway} retries on EADDRINUSE rather than trusting it.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** How long a queued message's follow-up run may take to start before the host's idle report ends the turn. */
const FOLLOW_UP_START_MS = 60_000;
/** How long after `agent.wait` answers a reply without a run may take to arrive as a chat event. */
const CHAT_REPLY_GRACE_MS = 2_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** True when the gateway's output says its port was taken (so another port is worth a try). */
export function portWasTaken(output: string): boolean {
  return /EADDRINUSE|address already in use|already listening|port \d+ is (already )?in use/i.test(output);
}

/**
 * Starts `openclaw gateway run --auth token --bind loopback --allow-unconfigured` on a
 * free port with the env's token and waits until it answers `health` over the socket
 * (retrying while it refuses or answers `UNAVAILABLE` during start-up: 2026.4.24 blocks
 * its event loop for a while "starting channels and sidecars"). If the port was taken
 * between choosing and binding, starts again on another (3 attempts). The caller must
 * `stop()` it; the harness also tracks the process group for `stopAllGroups()`.
 */
export async function startGateway(env: HostEnv, options: StartGatewayOptions = {}): Promise<Gateway> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startGatewayOnce(env, options);
    } catch (error) {
      const output = await fsp.readFile(path.join(env.root, "logs", "gateway.out.log"), "utf8").catch(() => "");
      if (attempt >= 3 || !(error instanceof PortTakenError) || !portWasTaken(output)) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startGatewayOnce(env: HostEnv, options: StartGatewayOptions): Promise<Gateway> {
  const port = await freePort();
  const started = Date.now();
  const outputPath = path.join(env.root, "logs", "gateway.out.log");
  await fsp.mkdir(path.dirname(outputPath), { recursive: true });
  const out = createWriteStream(outputPath, { flags: "a", mode: 0o600 });
  const args = [
    ...(options.nodeArgs ?? []),
    env.host.entry,
    "gateway",
    "run",
    "--auth",
    "token",
    "--bind",
    "loopback",
    "--allow-unconfigured",
    "--port",
    String(port),
  ];
  const child = spawnGroup(NODE_BINARY, args, {
    env: { ...env.env, OPENCLAW_GATEWAY_PORT: String(port) },
    cwd: env.root,
  });
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });
  const pid = child.pid;
  if (pid === undefined) throw new Error("Expected `openclaw gateway run` to start, got no PID");
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  let socket: GatewayClient | undefined;
  let connecting: Promise<GatewayClient> | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    socket?.close();
    await stopGroup(pid);
    out.end();
  };

  const client = (): Promise<GatewayClient> => {
    if (socket?.open) return Promise.resolve(socket);
    if (stopped) return Promise.reject(new Error(`Expected the gateway on ${port} to be running, but it was stopped`));
    connecting ??= connectGateway({ port, token: env.gatewayToken }).then(
      (c) => {
        socket = c;
        connecting = undefined;
        return c;
      },
      (error: unknown) => {
        connecting = undefined;
        throw error;
      },
    );
    return connecting;
  };

  const call = async (method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<unknown> =>
    (await client()).request(method, params, timeoutMs);

  const deadline = started + (options.readyTimeoutMs ?? 300_000);
  try {
    for (;;) {
      try {
        await call("health", {}, 30_000);
        break;
      } catch (error) {
        if (exited) {
          const taken = portWasTaken(await fsp.readFile(outputPath, "utf8").catch(() => ""));
          const message = `Expected the gateway to answer on ${port}, but it exited; see ${outputPath}`;
          throw taken ? new PortTakenError(message) : new Error(message, { cause: error });
        }
        if (Date.now() > deadline)
          throw new Error(`Expected the gateway to answer health on ${port} within the timeout; see ${outputPath}`, {
            cause: error,
          });
        const retryAfter = error instanceof GatewayRequestError ? error.retryAfterMs : undefined;
        await sleep(Math.min(Math.max(retryAfter ?? 250, 100), 2_000));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const startMs = Date.now() - started;

  // The session's `status` in `sessions.list` ("running" while the host works on it).
  const waitIdle = async (sessionKey: string, deadline: number): Promise<void> => {
    for (let delay = 50; Date.now() < deadline; delay = Math.min(delay * 2, 500)) {
      let list: { sessions?: { key?: string; status?: string }[] } | undefined;
      try {
        list = (await call("sessions.list", {}, 30_000)) as typeof list;
      } catch {
        return; // A line without the method: fall back to the follow-up detection below.
      }
      const entry = list?.sessions?.find((s) => s.key === sessionKey);
      if (entry?.status !== "running") return;
      await sleep(delay);
    }
  };

  // agent.wait resolves when the run ends (the host's own completion signal): no quiet periods.
  const waitRun = async (runId: string, deadline: number): Promise<Record<string, unknown>> => {
    for (;;) {
      let wait: Record<string, unknown> | undefined;
      const slice = Math.max(1_000, Math.min(120_000, deadline - Date.now()));
      try {
        wait = (await call("agent.wait", { runId, timeoutMs: slice }, slice + 30_000)) as
          Record<string, unknown> | undefined;
      } catch (error) {
        if (!retryable(error) || Date.now() > deadline) throw error;
        await sleep(500);
        continue;
      }
      if ((wait?.status !== "timeout" && wait?.status !== "pending") || Date.now() > deadline) return wait ?? {};
    }
  };

  return {
    port,
    pid,
    startMs,
    outputPath,
    client,
    call,
    async cliCall(method, params = {}, timeoutMs = 60_000) {
      const args = [
        "gateway",
        "call",
        method,
        "--params",
        JSON.stringify(params),
        "--json",
        "--timeout",
        String(timeoutMs),
      ];
      const result = await runOpenclaw(env, [...args, "--url", `ws://127.0.0.1:${port}`, "--token", env.gatewayToken], {
        timeoutMs: timeoutMs + 30_000,
      });
      if (result.code !== 0) {
        throw new Error(
          `Expected gateway call ${method} to succeed, got exit ${String(result.code)}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
        );
      }
      return extractJson(result.stdout) ?? extractJson(result.stderr);
    },
    async chatSend(sessionKey, message, timeoutMs = 600_000) {
      const t0 = Date.now();
      const deadline = t0 + timeoutMs;
      // One idempotency key for every retry: the gateway dedupes, so a resent message never runs twice.
      const params = { sessionKey, message, idempotencyKey: randomUUID() };
      // A message sent while the session still works on the last turn (4.24: post-turn
      // maintenance after agent.wait answered) is queued as a follow-up, not run: wait
      // until the host reports the session idle.
      await waitIdle(sessionKey, deadline);
      const runs = watchRuns(await client(), sessionKey);
      try {
        let ack: { runId?: string } | undefined;
        for (;;) {
          try {
            ack = (await call("chat.send", params, 60_000)) as { runId?: string } | undefined;
            break;
          } catch (error) {
            if (!retryable(error) || Date.now() > deadline) throw error;
            await sleep(500);
          }
        }
        const runId = ack?.runId;
        if (!runId) throw new Error(`Expected chat.send to answer a runId, got ${JSON.stringify(ack)}`);
        const wait = await waitRun(runId, deadline);
        if (runs.started.has(runId) || Date.now() > deadline) return { runId, wait, ms: Date.now() - t0 };
        // A reply without a run (a plugin's chat command, 2026.4.24's reset notice) ends the turn: the host sends
        // it as a chat event of the send's own run id.
        if (await runs.endedAsChat(runId, CHAT_REPLY_GRACE_MS)) return { runId, wait, ms: Date.now() - t0 };
        // No run of its own started: the host queued the message as a follow-up of the
        // session's running work. The turn is over when a run that started after the send
        // ends. The session's status is no backstop here: 2026.4.24 reports it idle while its
        // lane still finishes the last turn, before the follow-up starts (a CI run read turns
        // 7, 8 and 13 of a long session before their answers). Only when no run starts within
        // FOLLOW_UP_START_MS is the host's idle report taken as the end.
        let followUp = await runs.nextEnd(runId, Math.min(deadline, Date.now() + FOLLOW_UP_START_MS));
        if (!followUp && [...runs.started].some((id) => id !== runId)) followUp = await runs.nextEnd(runId, deadline);
        if (!followUp) await waitIdle(sessionKey, deadline);
        const settled = followUp && !runs.chatEnded.has(followUp) ? await waitRun(followUp, deadline) : wait;
        return { runId, wait: settled, ms: Date.now() - t0, queued: true };
      } finally {
        runs.stop();
      }
    },
    sessionsCompact: (key) => call("sessions.compact", { key }, 300_000),
    running: () => !exited && !stopped,
    stop,
  };
}

/** A dropped socket or a busy gateway: worth one more try on a fresh connection. */
function retryable(error: unknown): boolean {
  if (!(error instanceof GatewayRequestError)) return error instanceof Error && /socket|connect/i.test(error.message);
  return error.code === "SOCKET_CLOSED" || error.code === "CLIENT_TIMEOUT" || error.code === "UNAVAILABLE";
}

interface RunWatch {
  /** Run ids whose lifecycle started in the session since the watch began. */
  started: Set<string>;
  /**
   * Resolves with the id of the first run other than `except` that started and then ended (undefined at the deadline).
   */
  nextEnd(except: string, deadline: number): Promise<string | undefined>;
  /** Runs whose end was seen only as a chat reply (no agent run to wait on). */
  chatEnded: Set<string>;
  /** True once `runId` ended as a chat reply, waiting up to `graceMs` for that event. */
  endedAsChat(runId: string, graceMs: number): Promise<boolean>;
  stop(): void;
}

/** Watches a session's agent lifecycle events (`stream: "lifecycle"`, phase start / end / error), every host line. */
function watchRuns(socket: GatewayClient, sessionKey: string): RunWatch {
  const started = new Set<string>();
  const chatEnded = new Set<string>();
  const ended: string[] = [];
  let notify: (() => void) | undefined;
  const off = socket.onEvent((e) => {
    if (e.event === "chat") {
      // A reply the host sends without a run (2026.4.24's reset notice) ends the turn too.
      const c = e.payload as { runId?: string; sessionKey?: string; state?: string } | undefined;
      if (
        c?.runId &&
        c.sessionKey === sessionKey &&
        (c.state === "final" || c.state === "error" || c.state === "aborted")
      ) {
        chatEnded.add(c.runId);
        ended.push(c.runId);
        notify?.();
      }
      return;
    }
    if (e.event !== "agent") return;
    const p = e.payload as
      { runId?: string; sessionKey?: string; stream?: string; data?: { phase?: string } } | undefined;
    if (!p?.runId || p.sessionKey !== sessionKey || p.stream !== "lifecycle") return;
    if (p.data?.phase === "start") started.add(p.runId);
    if ((p.data?.phase === "end" || p.data?.phase === "error") && started.has(p.runId)) {
      ended.push(p.runId);
      notify?.();
    }
  });
  return {
    started,
    chatEnded,
    async endedAsChat(runId, graceMs) {
      const until = Date.now() + graceMs;
      while (!chatEnded.has(runId) && Date.now() < until) await sleep(50);
      return chatEnded.has(runId);
    },
    async nextEnd(except, deadline) {
      for (;;) {
        const id = ended.find((r) => r !== except);
        if (id) return id;
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 5_000));
          notify = () => (clearTimeout(t), resolve());
        });
      }
    },
    stop: off,
  };
}
