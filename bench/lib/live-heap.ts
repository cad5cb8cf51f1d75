/**
 * What a running gateway really holds: its memory right after a full garbage collection, read through the V8
 * inspector. RSS alone cannot tell retained memory from heap that V8 has not collected or returned yet; a forced
 * collection before reading `process.memoryUsage()` can. The gateway must run with `--inspect=127.0.0.1:0` (a port of
 * its own; Node prints it). Not SIGUSR1, Node's other switch: an OpenClaw gateway takes SIGUSR1 as "restart".
 */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { sessionProcesses } from "./gateway-run.js";
import { round } from "./stats.mjs";

const MB = 1_048_576;

/** The gateway's memory after a full collection, in MB; undefined when its inspector cannot be reached. */
export interface LiveHeap {
  /** Live JavaScript objects. */
  heapUsedMb: number;
  /** What V8 holds for the heap, live or not. */
  heapTotalMb: number;
  /** Buffers and other memory outside the heap that JavaScript objects hold. */
  externalMb: number;
  /** The process's resident memory, after the collection. */
  rssMb: number;
}

/**
 * Forces a full collection in the gateway started as `leader`, whose output (with Node's "Debugger listening on ws://…"
 * lines) is in `outputPath`, and reads its memory; undefined if that fails. The gateway is the largest process of the
 * leader's session: 2026.4.24's `openclaw` bin is a small launcher whose child serves, 2026.9.6's is the gateway.
 */
export async function liveHeap(leader: number, outputPath: string, timeoutMs = 60_000): Promise<LiveHeap | undefined> {
  const session = await gatewaySession(leader, outputPath, timeoutMs);
  if (!session) return undefined;
  try {
    return await readHeap(session);
  } finally {
    session.close();
  }
}

/** Where the live memory was allocated: the sampled allocations still alive, by code. */
export interface HeapAttribution {
  /** Live sampled bytes (MB) by whose code allocated them: the plugin, the host, Node or a dependency. */
  byOwner: Record<string, number>;
  /** The allocation sites holding the most, `function url:line` with MB. */
  top: { site: string; mb: number }[];
}

/**
 * Starts V8's sampling heap profiler in the gateway; `stop()` forces a full collection and attributes what is still
 * alive of the sampled allocations to the code that made them (the first frame from the allocation up that is not
 * Node's own). Undefined when the inspector cannot be reached.
 */
export async function sampleLiveAllocations(
  leader: number,
  outputPath: string,
  timeoutMs = 60_000,
): Promise<{ stop(): Promise<HeapAttribution> } | undefined> {
  const session = await gatewaySession(leader, outputPath, timeoutMs);
  if (!session) return undefined;
  await session.send("HeapProfiler.enable");
  await session.send("HeapProfiler.startSampling", { samplingInterval: 32_768 });
  return {
    async stop() {
      try {
        await session.send("HeapProfiler.collectGarbage");
        const { profile } = (await session.send("HeapProfiler.stopSampling")) as { profile: { head: ProfileNode } };
        return attribute(profile.head);
      } finally {
        session.close();
      }
    },
  };
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

function attribute(head: ProfileNode): HeapAttribution {
  const byOwner = new Map<string, number>();
  const bySite = new Map<string, number>();
  const walk = (node: ProfileNode, owner: string | undefined, site: string | undefined): void => {
    const { url, functionName, lineNumber } = node.callFrame;
    const own = ownerOf(url);
    // The innermost frame that is not Node's own names the site and its owner.
    const here = own && own !== "node" ? own : owner;
    const at =
      own && own !== "node"
        ? `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "")}:${lineNumber + 1}`
        : site;
    if (node.selfSize > 0) {
      const key = here ?? "node";
      byOwner.set(key, (byOwner.get(key) ?? 0) + node.selfSize);
      const s = at ?? `${functionName || "(root)"}`;
      bySite.set(s, (bySite.get(s) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here, at);
  };
  walk(head, undefined, undefined);
  const mb = (bytes: number): number => round(bytes / MB);
  return {
    byOwner: Object.fromEntries([...byOwner].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, mb(v)])),
    top: [...bySite]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([site, bytes]) => ({ site, mb: mb(bytes) })),
  };
}

/** Whose code a script URL is: the plugin's, the host's, a dependency's, or Node's own (no URL, `node:`). */
function ownerOf(url: string): string | undefined {
  if (!url || url.startsWith("node:")) return url ? "node" : undefined;
  if (/context-ledger|\/work\/main\/dist\//.test(url)) return "context-ledger";
  if (/node_modules\/openclaw\//.test(url)) return "openclaw";
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return dep ? `dependency ${dep[1]}` : "other";
}

/** An inspector session on the gateway started as `leader` (see {@link liveHeap}). */
async function gatewaySession(leader: number, outputPath: string, timeoutMs: number): Promise<CdpSession | undefined> {
  const pid = largestInSession(leader);
  if (pid === undefined) return undefined;
  const output = await readFile(outputPath, "utf8").catch(() => "");
  // Newest first: a restarted gateway appends to the same file.
  const urls = [...output.matchAll(/Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+)/g)].map((m) => m[1]!);
  for (const url of urls.reverse()) {
    const session = await connect(url, timeoutMs).catch(() => undefined);
    if (!session) continue;
    if ((await session.evaluate("process.pid").catch(() => undefined)) === pid) return session;
    session.close();
  }
  return undefined;
}

async function readHeap(session: CdpSession): Promise<LiveHeap> {
  await session.send("HeapProfiler.enable");
  await session.send("HeapProfiler.collectGarbage");
  const usage = JSON.parse(String(await session.evaluate("JSON.stringify(process.memoryUsage())"))) as Record<
    string,
    number
  >;
  const mb = (key: string): number => round((usage[key] ?? 0) / MB);
  return { heapUsedMb: mb("heapUsed"), heapTotalMb: mb("heapTotal"), externalMb: mb("external"), rssMb: mb("rss") };
}

/** The process of `leader`'s session with the most resident memory. */
function largestInSession(leader: number): number | undefined {
  return sessionProcesses(leader).sort((a, b) => b.rssKb - a.rssKb)[0]?.pid;
}

interface CdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  evaluate(expression: string): Promise<unknown>;
  close(): void;
}

async function connect(url: string, timeoutMs: number): Promise<CdpSession> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`inspector ${url} refused the connection`)), {
      once: true,
    });
  });
  let next = 1;
  const waiting = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  socket.addEventListener("message", (event) => {
    const reply = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown>; error?: unknown };
    const entry = reply.id === undefined ? undefined : waiting.get(reply.id);
    if (!entry) return;
    waiting.delete(reply.id as number);
    if (reply.error) entry.reject(new Error(JSON.stringify(reply.error)));
    else entry.resolve(reply.result ?? {});
  });
  const send = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const id = next++;
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => waiting.set(id, { resolve, reject }));
    socket.send(JSON.stringify({ id, method, params }));
    return Promise.race([
      answer,
      sleep(timeoutMs, undefined, { ref: false }).then(() =>
        Promise.reject(new Error(`inspector: no answer to ${method} in ${timeoutMs} ms`)),
      ),
    ]);
  };
  return {
    send,
    async evaluate(expression) {
      const result = await send("Runtime.evaluate", { expression, returnByValue: true });
      return (result.result as { value?: unknown } | undefined)?.value;
    },
    close: () => socket.close(),
  };
}
