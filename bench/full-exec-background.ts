/**
 * Benchmark 12, a long command at full size: on one gateway (2026.9.6 by default) whose agent has the opt-in
 * (`offload.fullExecOutput`) and the hosts' default `tools.exec.backgroundMs` (10 s), one `exec` prints about 5 MB
 * over about 20 s. The host sends the call to the background while it prints; when the command ends, its whole
 * output must be stored from its tee file (byte-exact, read back from the store), and no tee file left behind.
 * The host scenario `full-exec-background` runs the same path scaled down (1 s, about 4 s) on every line in
 * `npm test`; at full size it takes about 2 minutes of a gateway, so it runs only when named:
 * `npm run bench -- --only full-exec-bg` (`--quick`: about 5 MB over about 12 s, still past the 10 s).
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { createArtifactStore } from "../src/artifacts/index.js";
import { artifactRoot } from "../src/state/paths.js";
import { startGateway, type Gateway } from "../test/host/gateway.js";
import { createHostEnv, type HostEnv } from "../test/host/host-env.js";
import type { HostVersion } from "../test/host/host-install.js";
import { readPluginEvents } from "../test/host/logs.js";
import { startMockModel, type MockReply, type MockRequest } from "../test/host/mock-model.js";
import { hasToolResultInCurrentTurn, toolResultsInCurrentTurn } from "../test/host/mock-scripts.js";
import { stopAllGroups } from "../test/host/processes.js";
import { check, round } from "./lib/stats.mjs";

const MODEL = { contextWindow: 32_000, maxTokens: 4_096 } as const;
const CHUNKS = 40;
const CHUNK_BYTES = 131_072;
/** The hosts' default `tools.exec.backgroundMs`: the agent's config leaves it alone. */
const DEFAULT_BACKGROUND_MS = 10_000;
const SESSION = "agent:main:full-exec-bg";

/** Options of {@link runFullExecBackgroundBench}. */
export interface FullExecBackgroundOptions {
  version?: HostVersion;
  /** Pause between the 40 chunks of 128 KiB, in seconds. @default 0.5 (about 20 s) */
  pauseSec?: number;
  log?: (line: string) => void;
}

/** The command and the bytes it writes. */
function printer(pauseSec: number): { command: string; expected: Buffer } {
  const command = `for i in $(seq 1 ${CHUNKS}); do head -c ${CHUNK_BYTES} /dev/zero | tr '\\000' 'b'; echo " $i"; sleep ${pauseSec}; done`;
  const parts: Buffer[] = [];
  for (let i = 1; i <= CHUNKS; i++) parts.push(Buffer.alloc(CHUNK_BYTES, "b"), Buffer.from(` ${i}\n`));
  return { command, expected: Buffer.concat(parts) };
}

async function until<T>(what: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    const got = await what();
    if (got !== undefined) return got;
  }
  return undefined;
}

/** One backgrounded 5 MB call at the default backgroundMs; figures with their targets. */
export async function runFullExecBackgroundBench(options: FullExecBackgroundOptions = {}) {
  const version = options.version ?? "2026.9.6";
  const pauseSec = options.pauseSec ?? 0.5;
  const log = options.log ?? (() => {});
  const { command, expected } = printer(pauseSec);
  let toolText: string | undefined;
  const script = (request: MockRequest): MockReply => {
    if (request.toolNames.length === 0) return { text: "Summary." };
    if (hasToolResultInCurrentTurn(request.messages)) {
      toolText ??= toolResultsInCurrentTurn(request.messages).at(-1);
      return { text: "It runs in the background." };
    }
    if (request.userText.includes("Run the slow printer")) return { toolCalls: [{ name: "exec", args: { command } }] };
    // The host's own turn when the command ends ("[OpenClaw exec completion]", or its system event).
    return { text: "Noted." };
  };
  const mock = await startMockModel({ script });
  let env: HostEnv | undefined;
  let gateway: Gateway | undefined;
  try {
    env = await createHostEnv({
      version,
      baseUrl: mock.baseUrl,
      modelId: mock.modelId,
      ...MODEL,
      ledgerConfig: { offload: { fullExecOutput: true } },
    });
    gateway = await startGateway(env);
    const ledgerRoot = path.join(env.stateDir, "context-ledger");
    const started = Date.now();
    await gateway.chatSend(SESSION, "Run the slow printer with exec.", 180_000);
    // The turn (the model's answer after the call returned) as the client saw it end.
    const turnMs = Date.now() - started;
    log(`the turn ended after ${round(turnMs / 1000)} s`);
    const capture = await until(async () => {
      const events = await readPluginEvents(env as HostEnv);
      return events.find((e) => e.op === "capture" && e.source === "exec-tee");
    }, 180_000);
    const storedMs = Date.now() - started;
    const events = await readPluginEvents(env);
    const wrapped = events.filter((e) => e.op === "full-exec:wrapped").length;
    const handle = typeof capture?.handle === "string" ? capture.handle : undefined;
    const stored = handle
      ? await createArtifactStore({ root: artifactRoot(ledgerRoot, "main") })
          .read(handle)
          .catch(() => undefined)
      : undefined;
    const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    const byteExact = stored !== undefined && sha(stored) === sha(expected);
    const teeDir = path.join(ledgerRoot, "exec-tee");
    const left =
      (await until(async () => {
        const names = await fsp.readdir(teeDir).catch(() => []);
        return names.length === 0 ? names : undefined;
      }, 10_000)) ?? (await fsp.readdir(teeDir).catch(() => []));
    // The host's copy when the call returned: the command still ran (its last chunk was not in it).
    const backgrounded = toolText !== undefined && !toolText.includes(` ${CHUNKS}\n`);
    const result = {
      version,
      outputBytes: expected.length,
      printSec: round(CHUNKS * pauseSec),
      backgroundMs: DEFAULT_BACKGROUND_MS,
      turnSec: round(turnMs / 1000),
      storedSec: round(storedMs / 1000),
      wrapped,
      backgrounded,
      storedBytes: stored?.length ?? 0,
      captureBackground: capture?.background === true,
      teeFilesLeft: left.length,
    };
    log(JSON.stringify(result));
    return {
      ...result,
      targets: {
        wrapped: check(wrapped, ">=", 1, "calls"),
        backgrounded: check(Number(backgrounded), ">=", 1, "calls"),
        byteExact: check(Number(byteExact), ">=", 1, "outputs"),
        teeFilesLeft: check(left.length, "<=", 0, "files"),
      },
    };
  } finally {
    await gateway?.stop().catch(() => undefined);
    await stopAllGroups();
    await mock.close();
    await env?.cleanup();
  }
}
