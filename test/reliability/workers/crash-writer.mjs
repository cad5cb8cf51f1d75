// A writer the parent SIGKILLs at a random moment: stashes and commitTurns in a
// loop, journaling each write's start and end synchronously so the parent knows
// which writes were in flight when the process died.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { handleForBytes } from "../../../src/artifacts/index.ts";
import { parseConfig } from "../../../src/config/parse-config.ts";
import { createEngine } from "../../../src/engine/create-engine.ts";
import { createLedgerRuntime } from "../../../src/runtime/ledger-runtime.ts";
import { contentFor, journal, memoryLogger, prng, turnFor } from "./shared.mjs";

const { tag, stateDir, journalFile, marker, seed } = JSON.parse(process.argv[2]);
const rand = prng(seed);
const mem = memoryLogger();
const services = createLedgerRuntime({ config: parseConfig({ stateDir, logLevel: "warn" }), hostLogger: mem.logger });
const engine = createEngine(services, { agentDir: path.join(stateDir, "host", "agents", "main", "agent") });
const store = services.store("main");
const sessionKey = `agent:main:crash-${tag}`;

writeFileSync(marker, String(process.pid));
for (let i = 0; ; i++) {
  if (rand() < 0.6) {
    // Sizes from tiny to 600 KB so kills land inside large writes too.
    const size = rand() < 0.1 ? 200_000 + Math.floor(rand() * 400_000) : 100 + Math.floor(rand() * 20_000);
    const text = contentFor(`crash-${tag}-${i}`, size);
    const handle = handleForBytes(text);
    journal(journalFile, { op: "stash-start", handle, label: `crash-${tag}-${i}`, size });
    await store.stash(text, { kind: "tool-output" });
    journal(journalFile, { op: "stash-done", handle, label: `crash-${tag}-${i}`, size });
  } else {
    const key = `${tag}-${i}`;
    journal(journalFile, { op: "commit-start", key, sessionKey });
    const res = await engine.commitTurn({
      sessionId: "crash",
      sessionKey,
      advancementKey: key,
      messages: turnFor(key),
    });
    journal(journalFile, { op: "commit-done", key, sessionKey, status: res.status, logs: mem.lines.splice(0) });
  }
}
