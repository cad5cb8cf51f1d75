import { grepLines, type ArtifactMeta, type ArtifactStore, fmt } from "../artifacts/index.js";
import { LedgerError, describeValue } from "../errors.js";
import { compileSafeRegex } from "../safe-regex.js";

/** Matched lines a search answers at most by default, and at most on request. */
export const SEARCH_DEFAULT_RESULTS = 20;
export const SEARCH_MAX_RESULTS = 100;

/** What {@link searchSession} needs. */
export interface SearchInput {
  store: ArtifactStore;
  /** The session whose outputs are searched (the calling session: a search never reaches another one). */
  sessionKey: string;
  query: string;
  /** Treat `query` as a regular expression (vetted like every pattern) instead of literal text. */
  regex: boolean;
  maxResults: number;
  maxChars: number;
  /** Epoch ms after which the search stops and says so. */
  deadline: number;
  redact: (text: string) => string;
}

/** One stored output with matches. */
export interface SearchHit {
  handle: string;
  toolName: string | null;
  kind: string;
  createdAt: string;
  matches: number;
  text: string;
}

/** What a search found, with everything it left out counted. */
export interface SearchResult {
  hits: SearchHit[];
  /** Outputs of the session searched, and of them looked at before a bound was hit. */
  outputs: number;
  searched: number;
  matches: number;
  timedOut: boolean;
  full: boolean;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Searches every output the session stored (offloaded tool outputs, stripped schemas,
 * checkpoint packs of turns that left the window), newest first, line by line,
 * case-insensitively: the model's way back to what no handle in its prompt names any
 * more. Bounded by `maxResults` lines, `maxChars` and `deadline`; matched lines are
 * redacted before they are cut.
 */
export async function searchSession(input: SearchInput): Promise<SearchResult> {
  if (typeof input.query !== "string" || input.query.trim() === "")
    throw new LedgerError(
      "input_invalid",
      `Expected \`query\` to be non-empty text, got ${describeValue(input.query)}`,
    );
  const pattern = input.regex ? input.query : escapeRegex(input.query);
  const safe = compileSafeRegex(pattern, "i");
  // Literal text is looked for in the whole output at once (a plain regex search, linear), before any line work.
  const literal = input.regex ? undefined : new RegExp(pattern, "i");
  const metas: ArtifactMeta[] = [];
  for await (const m of input.store.list()) if (m.origin.sessionKey === input.sessionKey) metas.push(m);
  metas.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.handle.localeCompare(b.handle));
  const result: SearchResult = {
    hits: [],
    outputs: metas.length,
    searched: 0,
    matches: 0,
    timedOut: false,
    full: false,
  };
  let used = 0;
  let shown = 0;
  for (const meta of metas) {
    if (Date.now() > input.deadline) {
      result.timedOut = true;
      break;
    }
    if (shown >= input.maxResults || used >= input.maxChars) {
      result.full = true;
      break;
    }
    const text = await input.store.readText(meta.handle).catch(() => undefined);
    if (text === undefined) continue;
    result.searched++;
    const grep = (source: string, maxChars: number) =>
      grepLines(source, safe.regex, { context: 0, windowChars: safe.windowChars, maxChars, deadline: input.deadline });
    // Redacting every output on every query cost most of a search: only an output with a match is redacted (whole,
    // before any line is cut) and searched again, and only that second answer is shown.
    const hasMatch = literal ? literal.test(text) : grep(text, 0).matches > 0;
    if (!hasMatch) continue;
    const r = grep(input.redact(text), input.maxChars - used);
    result.matches += r.matches;
    if (r.timedOut) result.timedOut = true;
    if (r.outputFull) result.full = true;
    if (r.shownMatches === 0) continue;
    // grep's `--` between groups means nothing without context lines: every line kept is a match.
    const lines = r.text
      .trimEnd()
      .split("\n")
      .filter((l) => l !== "--")
      .slice(0, input.maxResults - shown);
    shown += lines.length;
    used += lines.reduce((s, l) => s + l.length + 1, 0);
    result.hits.push({
      handle: meta.handle,
      toolName: meta.origin.toolName ?? null,
      kind: meta.kind,
      createdAt: meta.createdAt,
      matches: r.matches,
      text: lines.join("\n"),
    });
  }
  return result;
}

/** The answer the model reads: per output, its handle (to fetch more), then `line:text` per match. */
export function renderSearch(query: string, r: SearchResult): string {
  const head = `[context-ledger search "${query.slice(0, 80)}" · ${fmt(r.matches)} matching lines in ${fmt(r.hits.length)} of ${fmt(r.outputs)} stored outputs of this session${r.searched < r.outputs ? ` (${fmt(r.searched)} searched)` : ""}${r.timedOut ? "; stopped at the time limit" : ""}${r.full ? "; more left out (raise maxResults, or narrow the query)" : ""}]`;
  const body = r.hits.map(
    (h) =>
      `${h.handle} · ${h.toolName ?? h.kind} · ${h.createdAt} · ${fmt(h.matches)} matches (ledger_fetch this handle with lines "A-B" for more)\n${h.text}`,
  );
  return [head, ...body].join("\n\n");
}
