import { rm } from "node:fs/promises";
import { parseConfig } from "../../src/config/parse-config.js";
import type { LedgerConfigInput } from "../../src/config/schema.js";
import { createEngine, type LedgerEngine } from "../../src/engine/create-engine.js";
import { createLedgerRuntime, type LedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import { makeTempDir } from "./temp-dir.js";

/** A quiet logger that keeps lines for assertions. */
export function createMemoryLogger() {
  const lines: string[] = [];
  const push = (level: string) => (m: string) => void lines.push(`${level} ${m}`);
  return { lines, logger: { debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") } };
}

/**
 * An engine over a temp state dir; `restart()` makes a new runtime on the same dir (a process restart).
 * `host: "2026.4"` calls the factory with no argument, as 2026.4.24 does. `tmpRoot`: where the dir is made
 * (`os.tmpdir()`; see `memoryTmpRoot()` in memory-tmp.ts). `hostConfig`: the host config the factory gets (its
 * models' windows), from 2026.5.28 on.
 * `cleanup()` disposes it and removes the dir; it also runs by itself when the test that made the engine
 * ends (or its file, for one made in a `beforeAll`), so a failing test leaves nothing behind.
 */
export async function createTestEngine(
  config: LedgerConfigInput = {},
  host: "2026.4" | "2026.9" = "2026.9",
  options: { tmpRoot?: string; hostConfig?: unknown } = {},
) {
  const factoryContext =
    host === "2026.4"
      ? undefined
      : { agentDir: "/tmp/state/agents/main/agent", ...(options.hostConfig ? { config: options.hostConfig } : {}) };
  let cleaned: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaned ??= (async () => {
      // A restart leaves the earlier engine's writes behind it: every engine made is disposed.
      await Promise.all(made.map((m) => m.engine.dispose()));
      await rm(dir, { recursive: true, force: true });
    })());
  const dir = await makeTempDir("ledger-engine-", cleanup, options.tmpRoot);
  const mem = createMemoryLogger();
  const make = (): { services: LedgerRuntime; engine: LedgerEngine } => {
    const services = createLedgerRuntime({ config: parseConfig({ ...config, stateDir: dir }), hostLogger: mem.logger });
    const fresh = { services, engine: createEngine(services, factoryContext) };
    made.push(fresh);
    return fresh;
  };
  const made: { engine: LedgerEngine }[] = [];
  let current = make();
  return {
    dir,
    logs: mem.lines,
    get services() {
      return current.services;
    },
    get engine() {
      return current.engine;
    },
    restart() {
      current = make();
      return current.engine;
    },
    cleanup,
  };
}

let ts = 1_700_000_000_000;
/** A user message. */
export const user = (text: string) => ({ role: "user", content: text, timestamp: ts++ });
/** An assistant text message. */
export const assistant = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-completions",
  provider: "mock",
  model: "m",
  usage: {},
  stopReason: "stop",
  timestamp: ts++,
});
/** An assistant message calling one tool. */
export const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  api: "openai-completions",
  provider: "mock",
  model: "m",
  usage: {},
  stopReason: "toolUse",
  timestamp: ts++,
});
/** A tool result. */
export const result = (id: string, name: string, text: string, details?: unknown) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError: false,
  ...(details ? { details } : {}),
  timestamp: ts++,
});

/** A deterministic log-like text of about `chars` chars. */
export function logText(chars: number, seed = 1): string {
  const lines: string[] = [];
  let n = 0;
  let i = seed;
  while (n < chars) {
    const line = `2026-11-22T03:${String(i % 60).padStart(2, "0")}:00Z INFO worker-${i % 7} processed batch ${i} in ${(i * 37) % 1000} ms status=ok`;
    lines.push(line);
    n += line.length + 1;
    i++;
  }
  return lines.join("\n").slice(0, chars);
}

/** A tool-heavy conversation of `turns` turns. */
export function conversation(turns: number, outputChars = 20_000) {
  const out: unknown[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(user(`Turn ${t}: please run the build and tell me what failed.`));
    out.push(call(`call-${t}`, "exec", { command: `npm run build -- --turn ${t}` }));
    out.push(result(`call-${t}`, "exec", logText(outputChars, t * 1000)));
    out.push(assistant(`Turn ${t} done: the build step ${t} finished; nothing failed in batch ${t}.`));
  }
  return out;
}
