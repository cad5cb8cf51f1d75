/**
 * Process state lives in the runtime object (`runtime/ledger-runtime.ts`: its `state` slots, its
 * stores, counters and settings), never in a module: a second runtime of the process (a
 * second config or state dir) must not read the first one's caches, and a test's runtime
 * must not leak into the next. The few module-level values that must be process-wide are
 * listed here with the reason; a new one fails this test until it is moved or listed. State
 * shared across module copies (the host evaluates the plugin again on each hot reload) sits on
 * `globalThis` under a `Symbol.for` key instead: the file locks' queue and lock library
 * (`fs/lock.ts`) and the copies' registry (`plugin.ts`). Those keys carry the plugin version
 * (`processWideKey`): a hot reload to another version in the same process starts from its own objects.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/parse-config.js";
import { withFileLock } from "../../src/fs/lock.js";
import { createLedgerRuntime } from "../../src/runtime/ledger-runtime.js";
import { stateSlot } from "../../src/runtime/state-slots.js";
import { PLUGIN_VERSION, processWideKey } from "../../src/version.js";
import { useTempDir } from "../support/temp-dir.js";

const SRC = path.resolve(import.meta.dirname, "../../src");

/** `file: name` → why it is process-wide. */
const PROCESS_WIDE: Record<string, string> = {
  "plugin.ts: runtimes": "the registry of runtime objects itself (one per config and state dir)",
  "chat/register-chat-command.ts: registered": "the host's api objects already given the chat command",
  "page/page-route.ts: registered": "the host's api objects already given the Ledger page's route and tab",
  "tokens/encoder.ts: tables": "BPE rank tables, immutable once loaded (~170 MB, ~0.7 s each)",
  "tokens/count-text.ts: prepared": "derived from those immutable tables, dropped with them",
  "tokens/tokenizer-bpe.ts: capacity": "scratch buffers of the synchronous merge: no data outlives a call",
  "tokens/tokenizer-bpe.ts: nextPart": "scratch buffer (see capacity)",
  "tokens/tokenizer-bpe.ts: prevPart": "scratch buffer (see capacity)",
  "tokens/tokenizer-bpe.ts: partRank": "scratch buffer (see capacity)",
  "tokens/tokenizer-bpe.ts: pairRank": "scratch buffer (see capacity)",
  "tokens/tokenizer-bpe.ts: heap": "scratch buffer (see capacity)",
  "artifacts/selectors/time-limit.ts: context": "an empty vm context hosting time-limited calls: holds no data",
};

// A top-level `let`, or a top-level const holding a new mutable collection (a `Readonly…` type marks a constant).
const MUTABLE =
  /^(?:export )?(?:let (\w+)|const (\w+)(?:: (?!Readonly)[^=]+)? = new (?:Map|WeakMap|Set|WeakSet|LRUCache|MinHeap)\b)/;

function moduleState(): string[] {
  const found: string[] = [];
  for (const name of readdirSync(SRC, { recursive: true, encoding: "utf8" })) {
    if (!name.endsWith(".ts") || name.endsWith(".test.ts")) continue;
    for (const line of readFileSync(path.join(SRC, name), "utf8").split("\n")) {
      const m = MUTABLE.exec(line);
      if (m) found.push(`${name.split(path.sep).join("/")}: ${m[1] ?? m[2]}`);
    }
  }
  return found.sort();
}

describe("process state", () => {
  it("lives in the runtime object, apart from the listed process-wide values", () => {
    expect(moduleState().filter((s) => !(s in PROCESS_WIDE))).toEqual([]);
  });

  it("lists no process-wide value that is gone (the list stays true)", () => {
    const present = new Set(moduleState());
    expect(Object.keys(PROCESS_WIDE).filter((s) => !present.has(s))).toEqual([]);
  });
});

const tmp = useTempDir("process-state-");

describe("process-wide state across plugin versions", () => {
  it("every Symbol.for key of the plugin carries its version", () => {
    const direct: string[] = [];
    for (const name of readdirSync(SRC, { recursive: true, encoding: "utf8" })) {
      if (!name.endsWith(".ts") || name.endsWith(".test.ts") || name === "version.ts") continue;
      if (readFileSync(path.join(SRC, name), "utf8").includes("Symbol.for(")) direct.push(name);
    }
    expect(direct).toEqual([]);
    expect(processWideKey("file-locks").description).toBe(`context-ledger.file-locks@${PLUGIN_VERSION}`);
  });

  it("a newer version hot-reloaded into the process never reuses an older version's objects", async () => {
    const g = globalThis as Record<symbol, unknown>;
    // What an older copy left on globalThis: an unversioned key (the keys before they carried a version) and an
    // older version's, each holding objects of the old shape.
    const names = ["process-wide", "file-locks", "module-copies"];
    const older = names.flatMap((name) => [
      Symbol.for(`context-ledger.${name}`),
      Symbol.for(`context-ledger.${name}@0.0.1`),
    ]);
    const stale = new Map<string, unknown>();
    const root = path.join(tmp(), "ledger");
    stale.set(`${root}\u0000request-overhead`, "older version's map");
    stale.set(`${root}\u0000probe`, "older version's object");
    const oldLocks = {
      lockfile: {
        lock: () => Promise.reject(new Error("older version's lock library")),
      },
      inProcess: new Map(),
    };
    for (const key of older)
      g[key] = key.description?.includes("process-wide")
        ? stale
        : key.description?.includes("file-locks")
          ? oldLocks
          : 7;
    try {
      const services = createLedgerRuntime({ config: parseConfig({ stateDir: root }) });
      expect(services.requestOverhead).toBeInstanceOf(Map);
      expect(services.processWide.get(stateSlot("probe", () => "this version's object"))).toBe("this version's object");
      await expect(withFileLock(path.join(tmp(), "state.lock"), () => Promise.resolve("locked"))).resolves.toBe(
        "locked",
      );
    } finally {
      for (const key of older) delete g[key];
    }
  });
});
