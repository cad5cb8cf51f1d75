import { describeEngineConformance } from "./conformance-suite.js";
import { createTestEngine } from "../support/engine-harness.js";
import type { LedgerRuntime } from "../../src/runtime/ledger-runtime.js";

/** The turns the runtime's session state holds (read from disk, so a commit is what persisted). */
async function committedTurns(
  services: LedgerRuntime,
  sessionKey: string,
): Promise<{ key: string; messages: number }[]> {
  await services.sessions.flush();
  return (await services.sessions.read("main", sessionKey)).recentTurns.map((r) => ({
    key: r.key,
    messages: r.messages,
  }));
}

describeEngineConformance("context-ledger (2026.9 factory)", async () => {
  const t = await createTestEngine();
  return {
    engine: t.engine as never,
    restart: () => t.restart() as never,
    committedTurns: (key) => committedTurns(t.services, key),
    cleanup: () => t.cleanup(),
  };
});

describeEngineConformance("context-ledger (2026.4 factory, no argument)", async () => {
  const t = await createTestEngine({}, "2026.4");
  return {
    engine: t.engine as never,
    restart: () => t.restart() as never,
    committedTurns: (key) => committedTurns(t.services, key),
    cleanup: () => t.cleanup(),
  };
});
