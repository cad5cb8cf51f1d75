import { PREVIEW_REDACT_WINDOW } from "../results/preview.js";
import { LRUCache } from "lru-cache";
import { findHandles } from "../artifacts/index.js";
import { parseStubHandle } from "../results/stub.js";
import type { AgentSettings } from "../config/schema.js";
import { errorMessage } from "../errors.js";
import { blocksOf, LEDGER_MARKER, roleOf, textOf, toolResultIdOf, type LooseMessage } from "../host/messages.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import type { ViewMessage, ViewOffload, ViewRecord } from "../state/view-record.js";
import type { ViewSnapshot } from "../assembly/ports.js";
import { stateSlot } from "../runtime/state-slots.js";
import { citedHandles, judgeContract, type AssembledPrompt } from "./view-contract.js";

/** What recording a view uses: the view writer, the store's metas, redaction, its caches. */
export type SnapshotDeps = Pick<LedgerServices, "root" | "store" | "redact" | "views" | "logger" | "state">;

const PREVIEW_CHARS = 160;
/** Messages recorded per view at most (the newest); a view of a huge history stays small. */
const MAX_RECORDED_MESSAGES = 400;
/** Offloaded outputs whose stored size is remembered in this process at most. */
const MAX_REMEMBERED_OFFLOADS = 10_000;

type Described = Omit<ViewMessage, "index" | "tokens">;
// A snapshot is taken at every assemble, and reading every message's text and every handle's meta again
// would cost about as much as the assembly itself. Kept messages are the same shaped objects from call to
// call, and a content-addressed artifact's meta never changes: describe each once.
type DescribedCache = WeakMap<object, { settings: AgentSettings; row: Described }>;
type OffloadCache = LRUCache<string, Promise<ViewOffload>>;
const DESCRIBED = stateSlot("view-snapshot:described", (): DescribedCache => new WeakMap());
const OFFLOADS = stateSlot(
  "view-snapshot:offloads",
  (): OffloadCache => new LRUCache({ max: MAX_REMEMBERED_OFFLOADS }),
);

/** The engine's stand-in for an output: its stub, or the placeholder of a cleared one (a fetch answer is neither). */
function isStandIn(text: string): boolean {
  return parseStubHandle(text) !== undefined || text.trimStart().startsWith(`${LEDGER_MARKER} cleared]`);
}

function viewRowOf(deps: SnapshotDeps, m: unknown, settings: AgentSettings): Described {
  const described = deps.state.get(DESCRIBED);
  const memo = m && typeof m === "object" ? described.get(m) : undefined;
  if (memo?.settings === settings) return memo.row;
  const text = textOf(m);
  const handles = findHandles(text);
  const toolName = (m as LooseMessage).toolName;
  const callId = toolResultIdOf(m);
  const calls = blocksOf(m)
    .filter((b) => b.type === "toolCall" || b.type === "tool_use" || b.type === "toolUse")
    .map((b) => String(b.name ?? "?"));
  const row: Described = {
    role: roleOf(m),
    chars: text.length,
    preview:
      deps
        // Redacted before the cut, over a window any secret starting in the preview fits in whole.
        .redact(settings, text.slice(0, PREVIEW_REDACT_WINDOW))
        .replace(/\s+/g, " ")
        .slice(0, PREVIEW_CHARS) || (calls.length ? `[calls ${calls.join(", ")}]` : ""),
    ...(typeof toolName === "string" ? { toolName } : {}),
    ...(callId ? { toolCallId: callId } : {}),
    ...(handles.length ? { handles } : {}),
    ...(handles.length && roleOf(m) === "toolResult" && isStandIn(text) ? { offloaded: true } : {}),
  };
  if (m && typeof m === "object") described.set(m, { settings, row });
  return row;
}

async function offloadsOfView(
  deps: SnapshotDeps,
  agentId: string,
  handles: ReadonlySet<string>,
): Promise<ViewOffload[]> {
  const offloads = deps.state.get(OFFLOADS);
  const out: ViewOffload[] = [];
  for (const handle of handles) out.push(await offloadOf(deps, offloads, agentId, handle));
  return out;
}

// Snapshots of back-to-back assemblies overlap; the promise is remembered so they share one read per handle.
function offloadOf(deps: SnapshotDeps, offloads: OffloadCache, agentId: string, handle: string): Promise<ViewOffload> {
  const key = `${agentId}\u0000${handle}`;
  const known = offloads.get(key);
  if (known) return known;
  const read = deps
    .store(agentId)
    .tryReadMeta(handle)
    .catch(() => undefined)
    .then((meta) => {
      // Not yet stored (or gone) is not remembered: the next snapshot looks again.
      if (!meta) offloads.delete(key);
      return {
        handle,
        bytes: meta?.bytes ?? null,
        lines: meta?.lines ?? null,
        toolName: meta?.origin.toolName ?? null,
      };
    });
  offloads.set(key, read);
  return read;
}

/**
 * Saves what the model is about to see (for `context-ledger view` and
 * `/ledger view`) in the background: previews redacted, sizes of offloaded
 * outputs read from the store. Never throws; a failure is logged with its code.
 */
export function recordViewSnapshot(
  deps: SnapshotDeps,
  settings: AgentSettings,
  identity: SessionIdentity,
  input: ViewSnapshot,
): void {
  const job = (async () => {
    const messages: ViewMessage[] = [];
    const from = Math.max(0, input.kept.length - MAX_RECORDED_MESSAGES);
    for (let k = from; k < input.kept.length; k++) {
      const index = input.keptIndexes[k] ?? k;
      const { role, ...rest } = viewRowOf(deps, input.kept[k], settings);
      messages.push({ index, role, tokens: input.tokensOf(index), ...rest });
    }
    // Outputs offloaded before this assembly (by an earlier one, or stubs paydown wrote into the host's
    // transcript) are offloaded too: the kept tool results that cite a handle name them.
    const cited = messages.filter((m) => m.offloaded === true).flatMap((m) => m.handles ?? []);
    const offloaded = await offloadsOfView(deps, identity.agentId, new Set([...input.handles, ...cited]));
    const prompt: AssembledPrompt = {
      shown: input.shown,
      kept: input.kept,
      keptIndexes: input.keptIndexes,
      summaryText: input.summary.text,
    };
    const citedByPrompt = citedHandles(prompt);
    const stored = new Set<string>();
    for (const o of await offloadsOfView(deps, identity.agentId, citedByPrompt))
      if (o.bytes !== null) stored.add(o.handle);
    const record: Omit<ViewRecord, "schema"> = {
      agentId: identity.agentId,
      sessionKey: identity.sessionKey,
      sessionId: identity.sessionId ?? null,
      turn: input.turn,
      at: new Date().toISOString(),
      budget: input.budget,
      estimatedTokens: input.estimatedTokens,
      plan: { ...input.plan, total: input.total, kept: input.kept.length },
      messages,
      offloaded,
      summary: input.summary.text
        ? { text: deps.redact(settings, input.summary.text), tokens: input.summary.tokens }
        : null,
      debt: input.debt,
      contract: judgeContract(prompt, citedByPrompt, (handle) => stored.has(handle)),
    };
    await deps.views.save(deps.root, record);
  })().catch((err: unknown) => {
    deps.logger.warn(`view record not saved session=${identity.sessionKey}: ${errorMessage(err)}`);
  });
  deps.views.track(job);
}
