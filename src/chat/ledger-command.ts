import { listedHandles, resolveHandleRef, shortHandleOf } from "../artifacts/handle-prefix.js";
import { ACCEPTED_FETCH_FORMS, parseLineRange } from "../retrieval/fetch-input.js";
import { createLedgerTools } from "../retrieval/tools.js";
import { agentIdFromSessionKey } from "../host/normalize.js";
import { LEDGER_COMMAND } from "../host/messages.js";
import { redactSecrets } from "../results/redact.js";
import type { LedgerServices } from "../runtime/services.js";
import { readViewRecords, viewRecordPath, type ViewRecord } from "../state/view-record.js";
import { errorMessage, isLedgerError } from "../errors.js";
import { formatBytes, formatCount, plural } from "../cli/core/format.js";
import { userTurnOfView, viewHeadline } from "../cli/inspect/view-render.js";
import { debtTrend, inTurnAssembles, trendLabel } from "../cli/inspect/status-debt-trend.js";
import {
  describeTally,
  emptyTally,
  figuresLine,
  sessionFigures,
  tallyStore,
  tallyStored,
} from "../cli/inspect/session-figures.js";
import { closestWord } from "../cli/core/closest-word.js";
import { PLUGIN_ID, selectedContextEngine } from "../cli/core/operator-context.js";

/** What the /ledger chat command reads: config, settings, stores, session state. */
export type ChatCommandDeps = Pick<
  LedgerServices,
  "config" | "root" | "settings" | "store" | "sessions" | "redactPatterns"
>;

/** The command name: `/ledger ...` in any chat. */
export const CHAT_COMMAND_NAME = LEDGER_COMMAND;

/** What the host passes a plugin command handler (the fields this command reads). */
export interface ChatCommandContext {
  agentId?: string;
  sessionKey?: string;
  args?: string;
  /** The host config the gateway runs with (every supported line passes it): does the slot select this engine. */
  config?: Record<string, unknown>;
}

/** The reply: text for the chat. */
export interface ChatCommandReply {
  text: string;
}

const CHAT_SUBCOMMANDS = ["status", "view", "fetch"] as const;

const HELP = [
  "context-ledger in chat:",
  "  /ledger status                    budget, prompt, raw history and debt of this session",
  "  /ledger view                      what the model saw last: kept, offloaded, summary",
  "  /ledger fetch HANDLE lines A-B    lines A to B of a stored output (also: head N, tail N, grep PATTERN);",
  "                                    HANDLE may be its first 8+ hex digits, as stubs print them",
].join("\n");

/**
 * Answers `/ledger status | view | fetch` for the current session from the
 * ledger's own state; fetch goes through the same `ledger_fetch` the model
 * uses (same scope, caps and ReDoS rules). Never throws: errors become text.
 */
export async function runChatCommand(deps: ChatCommandDeps, ctx: ChatCommandContext): Promise<ChatCommandReply> {
  const words = (ctx.args ?? "").trim().split(/\s+/).filter(Boolean);
  const [sub, ...rest] = words;
  // Never another agent's state: a chat whose agent cannot be told gets no answer from any store.
  const agentId = ctx.agentId || agentIdFromSessionKey(ctx.sessionKey);
  try {
    if (!sub || sub === "help") return { text: HELP };
    if (!(CHAT_SUBCOMMANDS as readonly string[]).includes(sub)) {
      const near = closestWord(sub, CHAT_SUBCOMMANDS);
      return {
        text: `Unknown /ledger command \`${sub}\`; expected status, view or fetch.${near ? ` Did you mean \`/ledger ${near}\`?` : ""}\n${HELP}`,
      };
    }
    if (!agentId) return { text: `/ledger ${sub}: this chat names no agent (no agent id, no agent:<id>: session key)` };
    if (sub === "status") return { text: await statusText(deps, agentId, ctx.sessionKey, ctx.config) };
    if (sub === "view") return { text: await viewText(deps, agentId, ctx.sessionKey) };
    return { text: await fetchText(deps, agentId, ctx.sessionKey, rest) };
  } catch (err) {
    return { text: `/ledger ${sub}: ${errorMessage(err)}` };
  }
}

async function statusText(
  deps: ChatCommandDeps,
  agentId: string,
  sessionKey: string | undefined,
  hostConfig: Record<string, unknown> | undefined,
): Promise<string> {
  const store = deps.store(agentId);
  const tally = await tallyStore(store);
  const stats = tally.stats;
  const head = `context-ledger · agent ${agentId}: ${describeTally(tally.all)}; ${formatBytes(stats.bytes)} original, ${formatBytes(stats.storedBytes)} on disk`;
  // Loaded but not selected: the host runs another engine, so this session's last figures are history, not state.
  const slot = hostConfig ? selectedContextEngine(hostConfig) : PLUGIN_ID;
  if (slot !== PLUGIN_ID)
    return `${head}\ncontext-ledger is off: plugins.slots.contextEngine is ${slot ? `"${slot}"` : "unset"}, so the host assembles this chat's prompts with ${slot ? `"${slot}"` : "its legacy engine"}. Stored outputs stay fetchable (/ledger fetch). To switch it on: \`openclaw config set plugins.slots.contextEngine ${PLUGIN_ID}\`, then restart the gateway.`;
  if (!deps.settings(agentId).enabled)
    return `${head}\ncontext-ledger is disabled for agent ${agentId} (plugin config: \`enabled: false\` for it or for all agents): its turns pass through unchanged and nothing new is recorded.`;
  if (!sessionKey) return `${head}\n(no session in this context)`;
  const s = await deps.sessions.read(agentId, sessionKey);
  const d = s.lastDebt;
  if (!d) return `${head}\nSession ${sessionKey}: no turn assembled by context-ledger yet.`;
  const trend = debtTrend(s.debtHistory);
  const inTurn = inTurnAssembles(d);
  const figures = sessionFigures(s);
  return [
    head,
    `Session ${sessionKey}: ${plural(figures.userTurns, "turn")}, ${describeTally(tally.bySession.get(sessionKey) ?? emptyTally())}, ${plural(figures.compactions, "compaction")} in the transcript`,
    `Prompt ${formatCount(d.assembledTokens)} of ${formatCount(d.promptBudget)} budget tokens; raw history ${formatCount(d.rawHistoryTokens)} tokens`,
    ...(inTurn
      ? [
          `(the turn's main prompt; the host's ${plural(inTurn.count, "other assemble")} for the turn had budgets down to ${formatCount(inTurn.smallestBudget)})`,
        ]
      : []),
    `Debt ${formatCount(figures.debtAfterPaydown)} tokens after the turn's paydown (${formatCount(figures.debtBeforePaydown)} before; ${trendLabel(trend)}); debt never enlarges the prompt`,
  ].join("\n");
}

async function viewText(deps: ChatCommandDeps, agentId: string, sessionKey: string | undefined): Promise<string> {
  if (!sessionKey) return "No session in this context.";
  const views = await readViewRecords(viewRecordPath(deps.root, agentId, sessionKey));
  const v: ViewRecord | undefined = views.at(-1);
  if (!v)
    return `No assembled view recorded for ${sessionKey} yet (one is recorded at each turn context-ledger assembles).`;
  const state = await deps.sessions.read(agentId, sessionKey);
  const stored = await tallyStored(deps.store(agentId), sessionKey);
  const lines = [
    `What the model saw · turn ${userTurnOfView(v)} · ${v.at}`,
    `Session so far: ${figuresLine({ ...sessionFigures(state), stored })}`,
    ...viewHeadline(v),
  ];
  const roles = new Map<string, number>();
  for (const m of v.messages) roles.set(m.role, (roles.get(m.role) ?? 0) + 1);
  lines.push(`Kept by role: ${[...roles].map(([r, n]) => `${r} ${n}`).join(", ") || "none"}`);
  for (const o of v.offloaded.slice(0, 8))
    lines.push(`  offloaded ${o.handle} · ${o.bytes === null ? "?" : formatBytes(o.bytes)} · ${o.toolName ?? "-"}`);
  if (v.offloaded.length > 8) lines.push(`  … ${v.offloaded.length - 8} more`);
  const first = v.offloaded[0];
  if (first) lines.push(`Fetch a slice: /ledger fetch ${shortHandleOf(first.handle)} lines 1-40`);
  return lines.join("\n");
}

/** How `/ledger fetch` is typed: the chat's own syntax, named in every fetch error. */
const FETCH_USAGE =
  "Usage: /ledger fetch HANDLE [lines A-B | head N | tail N | grep PATTERN] (HANDLE: the whole handle or its first 8+ hex digits)";

async function fetchText(
  deps: ChatCommandDeps,
  agentId: string,
  sessionKey: string | undefined,
  words: string[],
): Promise<string> {
  const [typed, kind, ...more] = words;
  if (!typed) return FETCH_USAGE;
  const selector = selectorOf(kind, more.join(" "));
  if (typeof selector === "string") return `${selector}\n${FETCH_USAGE}`;
  const settings = deps.settings(agentId);
  const anySession = settings.retrieval.chatFetchAnySession;
  let handle: string;
  try {
    handle = await resolveHandleRef(typed, () => chatHandles(deps, agentId, sessionKey, anySession), {
      where: anySession ? `in agent ${agentId}'s store` : "of this chat's session",
    });
  } catch (err) {
    if (isLedgerError(err, "handle_invalid") || isLedgerError(err, "artifact_not_found"))
      return `/ledger fetch: ${err.message}\n${FETCH_USAGE}`;
    throw err;
  }
  if (!anySession) {
    const refusal = await outsideSession(deps, agentId, sessionKey, handle);
    if (refusal) return refusal;
  }
  const [fetchTool] = createLedgerTools(
    {
      openStore: (a) => deps.store(a),
      readableAgents: (a) => deps.settings(a).retrieval.readableAgents,
      defaultMaxChars: Math.min(deps.config.retrieval.defaultMaxChars, 3_500),
      grepTimeoutMs: deps.config.retrieval.grepTimeoutMs,
      // A chat is read by people: the same redaction as every other view, over the whole output before the cut.
      redactFetch: (text) => redactSecrets(text, deps.redactPatterns(settings)),
    },
    { agentId, ...(sessionKey ? { sessionKey } : {}) },
  );
  const result = await (fetchTool as NonNullable<typeof fetchTool>).execute("ledger-chat-command", {
    handle,
    selector,
  });
  const error = result.details.error as { message?: unknown } | undefined;
  // The tool's errors name the model's JSON forms; a person in a chat types the chat's syntax.
  if (error) {
    const message = String(error.message).replace(`. ${ACCEPTED_FETCH_FORMS}`, "");
    return `/ledger fetch: ${message}\n${FETCH_USAGE}`;
  }
  return result.content.map((c) => c.text).join("\n");
}

/** Handles a chat may read: those its session's views show and its session stored (any of the agent's, if allowed). */
async function* chatHandles(
  deps: ChatCommandDeps,
  agentId: string,
  sessionKey: string | undefined,
  anySession: boolean,
): AsyncIterable<string> {
  if (sessionKey) {
    const views = await readViewRecords(viewRecordPath(deps.root, agentId, sessionKey)).catch(() => []);
    for (const v of views) {
      for (const o of v.offloaded) yield o.handle;
      for (const m of v.messages) yield* m.handles ?? [];
    }
  }
  if (!sessionKey && !anySession) return;
  yield* listedHandles(deps.store(agentId), (meta) => anySession || meta.origin.sessionKey === sessionKey);
}

/**
 * Why a chat may not read `handle`, or undefined when it may: the output must be this session's (stored from it,
 * or shown in one of its recorded views), unless the operator set `retrieval.chatFetchAnySession`.
 */
async function outsideSession(
  deps: ChatCommandDeps,
  agentId: string,
  sessionKey: string | undefined,
  handle: string,
): Promise<string | undefined> {
  const refusal =
    "No output of this chat's session has that handle (outputs of other sessions are readable in a chat only when " +
    "the operator sets `retrieval.chatFetchAnySession`; `context-ledger artifact fetch` reads any).";
  if (!sessionKey) return refusal;
  const normalized = handle.startsWith("ledger:") ? handle : `ledger:${handle.startsWith("v1:") ? "" : "v1:"}${handle}`;
  const meta = await deps
    .store(agentId)
    .tryReadMeta(normalized)
    .catch(() => undefined);
  if (meta?.origin.sessionKey === sessionKey) return undefined;
  const views = await readViewRecords(viewRecordPath(deps.root, agentId, sessionKey)).catch(() => []);
  const shown = views.some(
    (v) => v.messages.some((m) => m.handles?.includes(normalized)) || v.offloaded.some((o) => o.handle === normalized),
  );
  return shown ? undefined : refusal;
}

/** A selector from chat words, or what was wrong with them (in the chat's syntax). */
export function selectorOf(kind: string | undefined, arg: string): Record<string, unknown> | string {
  if (kind === undefined) return { kind: "headtail" };
  if (kind === "lines") {
    const range = parseLineRange(arg);
    if (!range) return `Expected \`lines A-B\` (1-based, e.g. lines 10-40), got \`lines ${arg}\``;
    if (range.start < 1 || range.end < range.start)
      return `Expected \`lines A-B\` with 1 ≤ A ≤ B (e.g. lines ${Math.max(1, Math.min(range.start, range.end))}-${Math.max(range.start, range.end, 1)}), got \`lines ${arg}\``;
    return { kind: "range", ...range };
  }
  if (kind === "head" || kind === "tail") {
    const n = arg.trim();
    if (n === "") return { kind, lines: 20 };
    if (!/^\d+$/.test(n) || Number(n) < 1)
      return `Expected \`${kind} N\` with N a number of lines from 1 (e.g. ${kind} 20), got \`${kind} ${arg}\``;
    return { kind, lines: Number(n) };
  }
  if (kind === "grep") return arg ? { kind: "grep", pattern: arg } : "Expected `grep PATTERN`";
  return `Expected lines A-B, head N, tail N or grep PATTERN after the handle, got \`${kind}\``;
}
