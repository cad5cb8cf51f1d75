import { describeEngineConformance } from "./conformance-suite.js";
import { createTestEngine } from "../support/engine-harness.js";

describeEngineConformance("context-ledger (2026.9 factory)", async () => {
  const t = await createTestEngine();
  return { engine: t.engine as never, restart: () => t.restart() as never, cleanup: () => t.cleanup() };
});

describeEngineConformance("context-ledger (2026.4 factory, no argument)", async () => {
  const t = await createTestEngine({}, "2026.4");
  return { engine: t.engine as never, restart: () => t.restart() as never, cleanup: () => t.cleanup() };
});
