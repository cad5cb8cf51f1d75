import { parseHandleRef, type HandleRef, selectSlice, fmt } from "../artifacts/index.js";
import { describeValue, isLedgerError, LedgerError } from "../errors.js";
import { agentIdFromSessionKey } from "../host/normalize.js";
import { buildPreview } from "../results/preview.js";
import { redactSecrets } from "../results/redact.js";
import { summarizeOutput } from "../results/summarize-output.js";
import { ACCEPTED_FETCH_FORMS, fetchSelector, normalizeFetchHandle } from "./fetch-input.js";
import { findArtifact, resolveInScope, type ArtifactScope } from "./find-artifact.js";
import { renderSearch, SEARCH_DEFAULT_RESULTS, SEARCH_MAX_RESULTS, searchSession } from "./search.js";
import { FETCH_PARAMETERS, PEEK_PARAMETERS, SEARCH_PARAMETERS } from "./tool-schemas.js";

/** Dependencies of the retrieval tools. */
export interface LedgerToolDeps extends ArtifactScope {
  /** Default cap of a fetch answer. @default 8000 */
  defaultMaxChars?: number;
  /** Time limit of a grep. @default 500 */
  grepTimeoutMs?: number;
  /** Time limit of a session search. @default 2000 */
  searchTimeoutMs?: number;
  /**
   * Applied to peek answers, previews before they are cut (fetch returns the original), with the calling agent's
   * settings. @default the built-in rules
   */
  redact?: (text: string, agentId: string | undefined) => string;
  /**
   * When set, fetch answers are redacted too, over the whole artifact before a slice is cut (so no secret is
   * shown half): for readers other than the model, such as a chat. @default undefined (the original bytes)
   */
  redactFetch?: (text: string) => string;
  /**
   * The handle of the whole stored output of a tool call of the calling session, by the call's id
   * (`ledger_fetch {toolCallId}`). @default none: a fetch by call id finds nothing
   */
  outputOfCall?: (agentId: string, context: LedgerToolContext, toolCallId: string) => Promise<string | undefined>;
}

/** The calling agent and session, as the host's tool factory passes them. */
export interface LedgerToolContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
}

/** A tool in the shape OpenClaw's `api.registerTool` takes. */
export interface LedgerTool {
  name: "ledger_fetch" | "ledger_peek" | "ledger_search";
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(toolCallId: string, params: unknown, signal?: AbortSignal): Promise<LedgerToolResult>;
}

/** What a tool call returns: text for the model, details for the host. */
export interface LedgerToolResult {
  content: Array<{ type: "text"; text: string }>;
  details: Record<string, unknown>;
}

/**
 * Creates `ledger_fetch` (a bounded slice of an artifact by handle and
 * selector) and `ledger_peek` (metadata and a short preview) for one agent.
 * `execute` never throws: failures come back as text plus `details.error`.
 */
export function createLedgerTools(deps: LedgerToolDeps, context: LedgerToolContext = {}): LedgerTool[] {
  // No agent named: the session key may name it; never fall back to another agent's store (it was `main`).
  const agentId = context.agentId ?? agentIdFromSessionKey(context.sessionKey);
  const redactWith = deps.redact;
  const redact = redactWith ? (text: string) => redactWith(text, agentId) : (text: string) => redactSecrets(text);
  return [
    {
      name: "ledger_fetch",
      label: "Ledger fetch",
      description:
        'Fetch a bounded slice of an output that context-ledger stored off the prompt. Pass the handle from a `[context-ledger artifact ...]` stub and either lines: "1200-1210" or a selector: headtail (default), head/tail {lines}, grep {pattern, flags: "i", context}, range {start, end} (1-based lines), json {path: "$.items[0].name"}. Answers are capped (maxChars, default 8000, at most 20000) and say what was left out. An output the host cut is stored whole as soon as its call returns: pass toolCallId (that call\'s id) instead of handle to read it in the same turn.',
      parameters: FETCH_PARAMETERS,
      execute: (_id, params, signal) =>
        guarded("fetch", signal, async () => {
          const p = objectParams(params);
          const handle = await fetchHandleOf(deps, agentId, context, p);
          const selector = fetchSelector(p);
          const maxChars = optionalInt(p.maxChars, "maxChars", 1, 20_000) ?? deps.defaultMaxChars ?? 8_000;
          const found = await findArtifact(deps, requireAgent(agentId), handle);
          if (!found) throw notFound(handle);
          const sliceOptions = { maxChars, grepTimeoutMs: deps.grepTimeoutMs ?? 500 };
          // Redaction runs over the whole text before the cut, so it reads the whole artifact; otherwise
          // only the chunks the selector looks at are read.
          const slice = deps.redactFetch
            ? selectSlice(deps.redactFetch(await found.store.readText(handle)), selector, sliceOptions)
            : await found.store.select(handle, selector, sliceOptions);
          return {
            content: [{ type: "text", text: `[context-ledger fetch ${handle} · ${slice.notice}]\n${slice.text}` }],
            details: {
              handle,
              selector,
              notice: slice.notice,
              truncated: slice.truncated,
              totalLines: slice.totalLines,
              totalChars: slice.totalChars,
              returnedChars: slice.text.length,
              agentId: found.agentId,
            },
          };
        }),
    },
    {
      name: "ledger_peek",
      label: "Ledger peek",
      description:
        "Show the metadata (size, lines, format, origin) and a short head-and-tail preview of a stored artifact, by handle.",
      parameters: PEEK_PARAMETERS,
      execute: (_id, params, signal) =>
        guarded("peek", signal, async () => {
          const p = objectParams(params);
          const handle = await typedHandle(deps, agentId, p.handle);
          const previewChars = Math.min(
            800,
            Math.max(300, optionalInt(p.previewChars, "previewChars", 1, 100_000) ?? 600),
          );
          const found = await findArtifact(deps, requireAgent(agentId), handle);
          if (!found) throw notFound(handle);
          const meta = await found.store.readMeta(handle);
          const text = await found.store.readText(handle);
          const o = meta.origin;
          const origin = [
            o.toolName && `tool ${o.toolName}`,
            o.toolCallId && `call ${o.toolCallId}`,
            o.sessionKey && `session ${o.sessionKey}`,
            o.agentId && `agent ${o.agentId}`,
          ]
            .filter(Boolean)
            .join(", ");
          const lines = [
            `[context-ledger peek ${handle}]`,
            `${fmt(meta.bytes)} bytes · ${fmt(meta.lines)} lines · ${meta.format} · kind ${meta.kind} · stored ${fmt(meta.storedBytes)} bytes (${meta.compression}) · created ${meta.createdAt}`,
            ...(origin ? [`origin: ${origin}`] : []),
            summarizeOutput(text, { toolName: o.toolName }),
            "--- preview (head and tail) ---",
            buildPreview(text, previewChars, redact),
            "--- end preview ---",
          ];
          // The whole answer passes through redaction (origin and summary lines too), the preview before it is cut.
          return {
            content: [{ type: "text", text: redact(lines.join("\n")) }],
            details: { handle, meta, agentId: found.agentId },
          };
        }),
    },
    {
      name: "ledger_search",
      label: "Ledger search",
      description:
        "Search every output context-ledger stored for this session (tool outputs offloaded from the prompt, condensed turns), also those no handle in your context names any more. Answers matching lines with the handle of each output and line numbers; fetch more with ledger_fetch. Case-insensitive literal text by default.",
      parameters: SEARCH_PARAMETERS,
      execute: (_id, params, signal) =>
        guarded("search", signal, async () => {
          const p = objectParams(params);
          const maxResults = optionalInt(p.maxResults, "maxResults", 1, SEARCH_MAX_RESULTS) ?? SEARCH_DEFAULT_RESULTS;
          if (context.sessionKey === undefined)
            throw new LedgerError("input_invalid", "Expected the tool context to name the calling session, got none");
          const r = await searchSession({
            store: deps.openStore(requireAgent(agentId)),
            sessionKey: context.sessionKey,
            query: p.query as string,
            regex: p.regex === true,
            maxResults,
            maxChars: deps.defaultMaxChars ?? 8_000,
            deadline: Date.now() + (deps.searchTimeoutMs ?? 2_000),
            redact,
          });
          const text = renderSearch(String(p.query), r);
          return {
            content: [{ type: "text", text }],
            details: {
              matches: r.matches,
              outputs: r.outputs,
              searched: r.searched,
              timedOut: r.timedOut,
              hits: r.hits.map((h) => ({ handle: h.handle, matches: h.matches, toolName: h.toolName })),
            },
          };
        }),
    },
  ];
}

/**
 * The factory form for `api.registerTool`: the host calls it with the tool
 * context of each run, so every agent gets tools scoped to its own store.
 */
export function createLedgerToolFactory(deps: LedgerToolDeps): (ctx?: LedgerToolContext) => LedgerTool[] {
  return (ctx = {}) => createLedgerTools(deps, ctx);
}

async function guarded(
  what: string,
  signal: AbortSignal | undefined,
  run: () => Promise<LedgerToolResult>,
): Promise<LedgerToolResult> {
  try {
    if (signal?.aborted) throw new LedgerError("aborted", "Expected to run, got an aborted signal");
    return await run();
  } catch (err) {
    const code = isLedgerError(err) ? err.code : "io_failed";
    const message = err instanceof Error ? err.message : String(err);
    return {
      content: [{ type: "text", text: `[context-ledger ${what} error] ${code}: ${message}` }],
      details: { error: { code, message } },
    };
  }
}

function objectParams(params: unknown): Record<string, unknown> {
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw new LedgerError(
      "input_invalid",
      `Expected parameters like {"handle":"ledger:v1:sha256:..."}, got ${describeValue(params)}. ${ACCEPTED_FETCH_FORMS}`,
    );
  }
  return params as Record<string, unknown>;
}

function optionalInt(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new LedgerError(
      "input_invalid",
      `Expected \`${name}\` to be an integer between ${min} and ${max}, got ${describeValue(value)}`,
    );
  }
  return value;
}

function requireAgent(agentId: string | undefined): string {
  if (agentId === undefined)
    throw new LedgerError(
      "input_invalid",
      "Expected the tool context to name the calling agent (agentId or an agent:<id>:... sessionKey), got neither",
    );
  return agentId;
}

/**
 * The handle of a call: any form {@link normalizeFetchHandle} takes, or the short form a person types (the first 8+
 * hex digits) when it starts exactly one handle this agent may read.
 */
async function typedHandle(deps: LedgerToolDeps, agentId: string | undefined, value: unknown): Promise<string> {
  try {
    return normalizeFetchHandle(value);
  } catch (err) {
    let ref: HandleRef;
    try {
      ref = parseHandleRef(value);
    } catch {
      throw err;
    }
    if ("handle" in ref) throw err;
    return resolveInScope(deps, requireAgent(agentId), value);
  }
}

/** The handle a fetch names: `handle`, else the stored output of the call `toolCallId` names. */
async function fetchHandleOf(
  deps: LedgerToolDeps,
  agentId: string | undefined,
  context: LedgerToolContext,
  p: Record<string, unknown>,
): Promise<string> {
  if (p.handle !== undefined || typeof p.toolCallId !== "string" || p.toolCallId.trim() === "")
    return typedHandle(deps, agentId, p.handle);
  const toolCallId = p.toolCallId.trim();
  const handle = await deps.outputOfCall?.(requireAgent(agentId), context, toolCallId);
  if (!handle)
    throw new LedgerError(
      "artifact_not_found",
      `Expected a stored output of call ${toolCallId} in this session, got none (an output the host did not cut is in your context as it is)`,
    );
  return handle;
}

function notFound(handle: string): LedgerError {
  return new LedgerError("artifact_not_found", `Expected an artifact for ${handle} readable by this agent, got none`);
}
