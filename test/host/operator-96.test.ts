/**
 * Issue 19 in a real 2026.9.6 gateway: the in-chat /ledger command and the
 * `openclaw context-ledger view | grep` CLI against the gateway's state.
 */
import { describe, it } from "vitest";
import { pluginIsBuilt } from "./smoke-run.js";
import { operatorScenario } from "./scenarios/operator.js";
import { runScenarioAlone } from "./scenarios/run-alone.js";

describe.skipIf(!pluginIsBuilt())("operator surface on 2026.9.6", () => {
  it("/ledger status, view, fetch answer in chat; view and grep read the gateway's state", async () => {
    await runScenarioAlone(operatorScenario, { version: "2026.9.6", engine: "context-ledger" });
  }, 600_000);
});
