import type { ArtifactStore } from "../../src/artifacts/index.js";
import { sealCheckpoint } from "../../src/summary/checkpoint.js";
import { extendSummary } from "../../src/summary/extend-summary.js";
import { createSummaryState, type SummaryState } from "../../src/summary/summary-state.js";
import { assistant, user } from "./engine-harness.js";

/**
 * Seals `count` checkpoint packs into `store` as `count` compactions of a growing session would, each pack naming
 * the one before as `previous`. Returns the packs' handles, oldest first, and the summary state after the last.
 */
export async function sealCheckpointChain(
  store: ArtifactStore,
  count: number,
): Promise<{ packs: string[]; state: SummaryState }> {
  let state: SummaryState = createSummaryState("e1");
  const messages: unknown[] = [];
  const packs: string[] = [];
  for (let i = 0; i < count; i++) {
    messages.push(user(`turn ${i}: build step ${i}`), assistant(`step ${i} done`));
    state = extendSummary(state, messages, messages.length);
    const sealed = await sealCheckpoint(state, {
      frontierIndex: messages.length - 1,
      frontierFingerprint: null,
      stash: (c) => store.stash(c, { kind: "checkpoint", format: "json" }),
    });
    state = sealed.state;
    packs.push(sealed.handle);
  }
  return { packs, state };
}
