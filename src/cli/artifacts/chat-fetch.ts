import { listedHandles, resolveHandleRef } from "../../artifacts/index.js";
import { isLedgerError } from "../../errors.js";
import { redactSecrets } from "../../results/redact.js";
import { ACCEPTED_FETCH_FORMS, parseLineRange } from "../../retrieval/fetch-input.js";
import { createLedgerTools } from "../../retrieval/tools.js";
import { readViewRecords, viewRecordPath } from "../../state/view-record.js";
import type { ChatCommandDeps, ChatRequest } from "../core/chat-request.js";

/** How `/ledger fetch` is typed: the chat's own syntax, named in every fetch error. */
const FETCH_USAGE =
  "Usage: /ledger fetch HANDLE [lines A-B | head N | tail N | grep PATTERN] (HANDLE: the whole handle or its first 8+ hex digits)";

/**
 * `/ledger fetch HANDLE [lines A-B | head N | tail N | grep PATTERN]`: goes through the same `ledger_fetch` the
 * model uses (same scope, caps and ReDoS rules), for this chat's session's outputs only unless the operator
 * sets `retrieval.chatFetchAnySession`.
 */
export async function chatFetchText(deps: ChatCommandDeps, request: ChatRequest): Promise<string> {
  const { agentId, sessionKey } = request;
  const [typed, kind, ...more] = request.words;
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
function selectorOf(kind: string | undefined, arg: string): Record<string, unknown> | string {
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
