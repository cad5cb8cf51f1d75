import type { TokenCounter } from "./ports.js";
import type { AgentSettings } from "../config/schema.js";
import { blocksOf, LEDGER_MARKER } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { buildStub } from "../results/stub.js";

/**
 * A user message part shorter than this is never moved out of the prompt (the prompt contract, docs/design.md): a
 * stub with its handle, preview and fetch advice runs to about 1,000 chars, so a shorter part would be replaced by
 * something longer than itself, and the model would lose the user's words for nothing.
 */
export const USER_PART_STUB_FLOOR_CHARS = 4_000;

/** What reducing a user turn uses: the store and redaction. */
export type ReduceDeps = Pick<LedgerServices, "store" | "redact">;

/** Who reduces the turn: the runtime (its store), the agent's settings, the session and the counter. */
export interface ReduceContext {
  deps: ReduceDeps;
  settings: AgentSettings;
  identity: SessionIdentity;
  counter: TokenCounter;
}

/**
 * The newest user turn alone exceeds the budget: move its oversized parts (from
 * {@link USER_PART_STUB_FLOOR_CHARS} up) into the artifact store and leave stubs
 * (handle, preview, summary), largest first, until it fits. Never drops the turn,
 * never stubs a part shorter than the floor; returns a new message list (the
 * host's array is not mutated).
 */
export async function reduceNewestUserTurn(
  { deps, settings, identity, counter }: ReduceContext,
  messages: unknown[],
  index: number,
  budget: number,
): Promise<unknown[]> {
  const original = messages[index] as Record<string, unknown>;
  const store = deps.store(identity.agentId);
  const origin = { agentId: identity.agentId, sessionKey: identity.sessionKey };
  let reduced: Record<string, unknown> = original;
  // First with the usual preview; if the stubs alone still do not fit, again with bare stubs.
  for (const previewChars of [settings.offload.previewChars, 0]) {
    const blocks = blocksOf(original).map((b) => ({ ...b }));
    const order = blocks
      .map((b, i) => ({
        i,
        size: typeof b.text === "string" ? b.text.length : typeof b.data === "string" ? b.data.length : 0,
      }))
      .filter((x) => x.size >= USER_PART_STUB_FLOOR_CHARS)
      .sort((a, b) => b.size - a.size || a.i - b.i);
    reduced = { ...original, content: blocks };
    for (const { i } of order) {
      if (counter.countMessage(reduced) <= budget) break;
      const block = blocks[i];
      if (!block) continue;
      if (typeof block.text === "string" && !block.text.startsWith(LEDGER_MARKER)) {
        const { handle, meta } = await store.stash(block.text, { kind: "user-input", origin });
        const stub = buildStub({
          handle,
          text: block.text,
          meta,
          previewChars,
          label: "user message part",
          redact: (t) => deps.redact(settings, t),
        });
        if (stub.length < block.text.length) blocks[i] = { type: "text", text: stub };
      } else if (block.type === "image" && typeof block.data === "string") {
        const { handle } = await store.stash(Buffer.from(block.data, "base64"), {
          kind: "user-image",
          format: String(block.mimeType ?? "image"),
          origin,
        });
        blocks[i] = {
          type: "text",
          text: `${LEDGER_MARKER} image ${handle}] image (${String(block.mimeType ?? "unknown type")}, ${block.data.length} base64 chars) moved to the artifact store to fit the prompt budget.`,
        };
      }
      reduced = { ...original, content: blocks };
    }
    if (counter.countMessage(reduced) <= budget) break;
  }
  const next = messages.slice();
  next[index] = reduced;
  return next;
}
