import { mtimeOrMissing } from "../fs/mtime.js";
import { createVersionedCache } from "../fs/versioned-cache.js";
import { LRUCache } from "lru-cache";
import type { SummaryRequest, ViewSummary } from "../assembly/ports.js";
import type { AgentSettings } from "../config/schema.js";
import type { SessionIdentity } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { sealCheckpoint } from "../summary/checkpoint.js";
import { countProblem } from "../state/session-state.js";
import {
  bringSummaryUpTo,
  findEpochSidecar,
  openSummary,
  saveOpenedSummary,
  summaryKey,
} from "../summary/summary-service.js";
import type { SummaryState } from "../summary/summary-state.js";
import { renderWithinRoom, summaryRenderer, type SummaryRender } from "../summary/summary-block.js";
import { firstUserFingerprint, showsKnownUser, userTurnsBefore, type NumberedUserTurn } from "../summary/user-turns.js";
import { USER_TURNS_HEADING } from "../summary/user-turns.js";
import { SUMMARY_BLOCK_CHARS, summaryBlockKey } from "../assembly/assembly-call.js";
import { userMessagesChars } from "../assembly/budget.js";
import { INHERITED_SUMMARY_HEADING, readInheritedSummary } from "../subagents/subagent-context.js";
import { stateSlot } from "../runtime/state-slots.js";

/** What the summary block uses: session state, the store, redaction, its caches. */
export type ViewSummaryDeps = Pick<LedgerServices, "sessions" | "store" | "redact" | "logger" | "state">;

interface CachedSummary {
  state: SummaryState;
  mtimeMs: number;
  stateKey: string;
  /** Rendered blocks by max chars (and, for a window short of the record's end, what it shows). */
  renders: Map<string, { text: string; tokens: number }>;
}

/** Sessions whose parsed summary stays in memory. */
const MAX_CACHED_SUMMARIES = 256;
/** Sidecar files whose read error was already logged (logged once each). */
const MAX_REPORTED_SIDECARS = 1_024;
const SUMMARIES = stateSlot("summary:cache", () => new LRUCache<string, CachedSummary>({ max: MAX_CACHED_SUMMARIES }));
const REPORTED_SIDECARS = stateSlot(
  "summary:reported-sidecars",
  () => new LRUCache<string, true>({ max: MAX_REPORTED_SIDECARS }),
);
const SUMMARY_RECORDS = stateSlot("summary:records", () => createVersionedCache<SummaryState>(MAX_CACHED_SUMMARIES));
/** Blocks of windows that may stand while the record moves on (a few budget classes per session). */
const MAX_STANDING_BLOCKS = 1_024;
/**
 * The block each window was first shown, by summary file, window start (and the message it follows) and size: while
 * the window stands its block stays byte-equal, even after another budget class sealed a pack and folded the record
 * (re-rendering the turns before the window from the folded record would change it, a prompt-cache miss).
 */
const STANDING_BLOCKS = stateSlot(
  "summary:standing-blocks",
  () => new LRUCache<string, { text: string; tokens: number }>({ max: MAX_STANDING_BLOCKS }),
);

/**
 * The session's own summary block (see {@link ownSummary}), followed, in a forked
 * subagent, by the summary it inherited from its parent while both fit the summary's
 * reserve and the room left (early in the child's life; its own summary takes over).
 */
export async function viewSummary(
  deps: ViewSummaryDeps,
  settings: AgentSettings,
  identity: SessionIdentity,
  input: SummaryRequest,
): Promise<ViewSummary> {
  const own = await ownSummary(deps, settings, identity, input);
  if (!settings.summary.enabled) return own;
  const inherited = await readInheritedSummary(deps, identity.agentId, identity.sessionKey);
  if (!inherited) return own;
  const block = `${INHERITED_SUMMARY_HEADING}\n${inherited}`;
  const text = own.text ? `${own.text}\n\n${block}` : block;
  // The plan reserved maxInjectedChars for the summary in the host's currency too: stay inside it.
  if (text.length > settings.summary.maxInjectedChars) return own;
  const tokens = input.counter.countText(text);
  return tokens <= input.budgetLeft ? { text, tokens } : own;
}

/**
 * Brings the summary up to the window's start and renders it when history
 * was trimmed or the window is under pressure. Its tokens always count inside
 * the budget: the rendering shrinks until it fits the room left, or is skipped.
 */
async function ownSummary(
  deps: ViewSummaryDeps,
  settings: AgentSettings,
  identity: SessionIdentity,
  input: SummaryRequest,
): Promise<ViewSummary> {
  if (!settings.summary.enabled) return { tokens: 0 };
  const target = Math.min(input.windowStart, input.messages.length);
  const redact = (text: string) => deps.redact(settings, text);
  const opened = await openCachedSummary(deps, identity, input.messages);
  // The message the window follows (the record's frontier), by the view table's fingerprint.
  const frontier = target > 0 ? input.fingerprint(target - 1) : null;
  // The quoted user messages' share of this budget: the same for every call of a budget class, so a standing
  // window's block stays the same.
  const quoted = deps.state.get(SUMMARY_BLOCK_CHARS);
  const userChars = userMessagesChars(settings, input.windowTokens + Math.max(0, input.budgetLeft));
  const advanced = await advanceSummary(deps, settings, identity, {
    opened,
    target,
    frontier,
    messages: input.messages,
    redact,
    userChars,
    seal: input.handedBack !== true,
  });
  // A record brought up to a handed-back view counts that view's indexes, not the transcript's: saved, the next
  // turn's transcript would roll it back to the front and tell every turn again.
  const renders: CachedSummary["renders"] = input.handedBack
    ? new Map()
    : (await saveSummary(deps, opened, advanced)).renders;
  const standing = deps.state.get(STANDING_BLOCKS);
  const windowKey = `${opened.file}|${target}|${frontier ?? ""}|${advanced.users.length}`;
  const room = {
    ...input,
    countText: (text: string) => input.counter.countText(text),
    raisedUserChars: userMessagesChars(settings, settings.budget.fallbackBudgetTokens),
  };
  const block = renderWithinRoom(settings, room, {
    ...advanced,
    userChars,
    renders,
    target,
    redact,
    standing,
    windowKey,
  });
  // The next plan of this budget class reserves what this block wanted at full size (it stays while the window stands:
  // a reserve that grew with every new message would shrink a standing window's room each turn, and re-plan it early;
  // one that followed a condensed block would keep it condensed).
  quoted.set(summaryBlockKey(identity, input.budgetTokens), block.wantedChars ?? block.text?.length ?? 0);
  return block;
}

/** The session's summary as opened: the sidecar's state, or the cached one while the file is unchanged. */
interface OpenedCachedSummary {
  opened: Awaited<ReturnType<typeof openSummary>>;
  file: string;
  mtimeMs: number;
  cached: CachedSummary | undefined;
}

/** Opens the summary of the current epoch; a sidecar that cannot be read is reported once and left for inspection. */
async function openCachedSummary(
  deps: ViewSummaryDeps,
  identity: SessionIdentity,
  messages: readonly unknown[],
): Promise<OpenedCachedSummary> {
  const reportedSidecars = deps.state.get(REPORTED_SIDECARS);
  const sessionDir = deps.sessions.dir(identity.agentId, identity.sessionKey);
  const { epoch, file, mtimeMs } =
    continuedInMemory(deps, sessionDir, messages) ??
    (await findEpochSidecar(sessionDir, messages, deps.state.get(SUMMARY_RECORDS)));
  deps.state.get(LAST_SIDECARS).set(sessionDir, file);
  const cached = deps.state.get(SUMMARIES).get(file);
  const opened = await openSummary({
    sessionDir,
    messages,
    epoch,
    ...(cached && cached.mtimeMs === mtimeMs ? { cached: cached.state } : {}),
    onReadError: (code, message) => {
      if (reportedSidecars.has(file)) return;
      reportedSidecars.set(file, true);
      deps.logger.error(
        `summary sidecar problem ${code}: ${message}; it is left untouched for inspection (the summary is rebuilt in memory until it is fixed or removed)`,
      );
      deps.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => countProblem(s, { code, message }));
    },
  });
  return { opened, file, mtimeMs, cached };
}

/** The sidecar each session used last (a host that drops the list's front shows another first message every turn). */
const LAST_SIDECARS = stateSlot(
  "summary:last-sidecars",
  () => new LRUCache<string, string>({ max: MAX_CACHED_SUMMARIES }),
);

/**
 * The sidecar the session used last, while the list still shows one of the user messages its record holds (the
 * record in memory is ahead of the file: user messages are written behind the call).
 */
function continuedInMemory(
  deps: ViewSummaryDeps,
  sessionDir: string,
  messages: readonly unknown[],
): { epoch: string; file: string; mtimeMs: number } | undefined {
  const file = deps.state.get(LAST_SIDECARS).get(sessionDir);
  const cached = file === undefined ? undefined : deps.state.get(SUMMARIES).get(file);
  if (!file || !cached || !showsKnownUser(cached.state.users ?? [], messages)) return undefined;
  return { epoch: cached.state.epoch, file, mtimeMs: mtimeOrMissing(file) };
}

/**
 * Whether a summary block handed back inside a turn (2026.9.x) still tells every user message the list does not
 * show: its quoted turns end right before the list's first user message. A host that trims the handed-back view's
 * front (seen on 2026.9.6 after a compaction) leaves a gap the carried block does not quote: then it is re-rendered.
 * True when the record in memory cannot say (no record yet, a block without quotes).
 */
export function carriedSummaryHolds(
  deps: Pick<ViewSummaryDeps, "sessions" | "state">,
  identity: SessionIdentity,
  messages: readonly unknown[],
  carriedText: string,
): boolean {
  const told = /^Earlier conversation: turns 1-(\d+),/m.exec(carriedText);
  if (!told?.[1] || !carriedText.includes(USER_TURNS_HEADING)) return true;
  const file = deps.state.get(LAST_SIDECARS).get(deps.sessions.dir(identity.agentId, identity.sessionKey));
  const users = file === undefined ? undefined : deps.state.get(SUMMARIES).get(file)?.state.users;
  const first = firstUserFingerprint(messages);
  if (!users || first === undefined) return true;
  const turn = users.findIndex((u) => u.fp === first) + 1;
  return turn === 0 || turn === Number(told[1]) + 1;
}

/**
 * The summary told up to `target`. Whatever the rendering condenses must stay reachable: a changed record that
 * needs it seals a pack holding the full record (an unchanged one was checked when it changed).
 */
async function advanceSummary(
  deps: ViewSummaryDeps,
  settings: AgentSettings,
  identity: SessionIdentity,
  step: {
    opened: OpenedCachedSummary;
    target: number;
    frontier: string | null;
    messages: readonly unknown[];
    redact: (t: string) => string;
    userChars: number;
    /** Seal a checkpoint pack when the rendering condenses turns no pack holds yet. */
    seal: boolean;
  },
): Promise<{ state: SummaryState; before: string; render: SummaryRender; users: NumberedUserTurn[] }> {
  const { opened, target, frontier, messages, redact, userChars, seal } = step;
  const before = summaryKey(opened.opened.state);
  const store = deps.store(identity.agentId);
  const brought = await bringSummaryUpTo(opened.opened.state, messages, target, async (handle) =>
    (await store.tryRead(handle))?.toString("utf8"),
  );
  const { state } = brought;
  const users = userTurnsBefore(brought.users, target);
  const render = summaryRenderer(state, redact, users, userChars);
  const { maxInjectedChars } = settings.summary;
  if (!seal || summaryKey(state) === before || !render(maxInjectedChars).needsCheckpoint)
    return { state, before, render, users };
  const sealed = await sealCheckpoint(state, {
    frontierIndex: target,
    frontierFingerprint: frontier,
    render: { maxChars: maxInjectedChars, redact },
    stash: (content) =>
      store.stash(content, {
        kind: "checkpoint",
        format: "json",
        origin: { agentId: identity.agentId, sessionKey: identity.sessionKey },
      }),
  });
  // Rendered afresh: the record line now carries the pack's handle.
  return { state: sealed.state, before, render: summaryRenderer(sealed.state, redact, users, userChars), users };
}

/** Saves a changed summary (never over a sidecar that could not be read) and caches it with its renders. */
async function saveSummary(
  deps: ViewSummaryDeps,
  { opened, file, mtimeMs, cached }: OpenedCachedSummary,
  { state, before }: { state: SummaryState; before: string },
): Promise<CachedSummary> {
  const stateKey = summaryKey(state);
  const writes = deps.state.get(SIDECAR_WRITES);
  if (stateKey !== before) await writeInOrder(writes, opened, state);
  const entry: CachedSummary = {
    state,
    mtimeMs: stateKey !== before ? mtimeOrMissing(file) : mtimeMs,
    // Rendered blocks survive across calls while the state is unchanged (warm turns re-render nothing).
    renders: cached && cached.stateKey === stateKey ? cached.renders : new Map(),
    stateKey,
  };
  if (!opened.readFailed) deps.state.get(SUMMARIES).set(file, entry);
  const usersChanged = stateKey === before && usersKey(state) !== usersKey(opened.state);
  if (usersChanged && mtimeMs < 0) {
    // The conversation's first record on disk: a host that drops the list's front later finds it by these messages.
    await writeInOrder(writes, opened, state);
    entry.mtimeMs = mtimeOrMissing(file);
  } else if (usersChanged) {
    // Only the user messages grew: written behind the call (a warm turn awaits no I/O), in order with the others.
    void writeInOrder(writes, opened, state)
      .then(() => {
        entry.mtimeMs = mtimeOrMissing(file);
      })
      .catch((err: unknown) => deps.logger.warn(`summary sidecar not saved: ${(err as Error).message}`));
  }
  return entry;
}

/** The sidecar writes in flight, per file: each waits for the one before it. */
const SIDECAR_WRITES = stateSlot("summary:sidecar-writes", () => new Map<string, Promise<unknown>>());

/** Waits for the sidecar writes in flight, so a dispose leaves none half done behind it. */
export async function flushSummaryWrites(deps: Pick<ViewSummaryDeps, "state">): Promise<void> {
  await Promise.allSettled([...deps.state.get(SIDECAR_WRITES).values()]);
}

/** Saves `state` after every earlier write of the same sidecar (a later state never loses to an earlier write). */
function writeInOrder(
  writes: Map<string, Promise<unknown>>,
  opened: OpenedCachedSummary["opened"],
  state: SummaryState,
): Promise<unknown> {
  const previous = writes.get(opened.file) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => saveOpenedSummary(opened, state));
  writes.set(opened.file, next);
  void next
    .catch(() => undefined)
    .finally(() => {
      if (writes.get(opened.file) === next) writes.delete(opened.file);
    });
  return next;
}

/** What tells one list of the conversation's user messages from another. */
function usersKey(state: SummaryState): string {
  const users = state.users ?? [];
  return `${users.length}:${users.at(-1)?.fp ?? ""}`;
}
