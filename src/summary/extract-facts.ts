/**
 * Deterministic fact extraction from message text: first sentences, decisions,
 * sentences carrying numbers, paths, URLs, handles, error codes and error
 * lines. Heuristics, tuned to keep what a later turn is likely to need; every
 * scan is bounded so one huge message costs at most `SCAN_CHARS`.
 */
import { findHandles, handlePattern } from "../artifacts/index.js";
import { LEDGER_MARKER } from "../host/messages.js";

/** Chars of a message scanned for facts; the rest is skipped (it is in the transcript or an artifact). */
export const SCAN_CHARS = 20_000;

/** Prefix of an artifact stub's first line (built by `results/`). */
export const ARTIFACT_STUB_PREFIX = "[context-ledger artifact";

const URL_RE = /\bhttps?:\/\/[^\s<>"'`)\]]+/g;
const PATH_RE =
  /(?<![\w/.:@-])(?:~\/|\.{1,2}\/|\/)?(?:[\w@+-][\w.@+-]*\/)*[\w@+-][\w@+.-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/])|(?<![\w/.:@-])(?:~\/|\.{1,2}\/|\/)(?:[\w@+.-]+\/)*[\w@+.-]+(?![\w/])|(?<![\w/.:@-])[\w@+-][\w.@+-]*\/(?:[\w@+.-]+\/)+[\w@+.-]+(?![\w/])/g;
const CODE_RE =
  /\b(?:ERR_[A-Z0-9_]+|E[A-Z]{3,}[A-Z0-9_]*|[A-Z][A-Z0-9]*_(?:ERR|ERROR|FAIL|FAILED)[A-Z0-9_]*|[A-Z]{1,5}-?\d{3,5}|[A-Z][A-Za-z]+(?:Error|Exception)|HTTP \d{3}|SIG[A-Z]{3,})\b/g;
const ERROR_WORD_RE =
  /\b(?:error|errors|fail|fails|failed|failing|failure|fatal|crash(?:es|ed|ing)?|exception|panic|traceback|denied|refused|not found|timed out|cannot|unable to)\b/i;
const ERROR_CODE_RE = /ERR_|\bE[A-Z]{3,}\b/;
const DECISION_RE =
  /\b(?:decided|decide|decision|we(?:'ll| will| should| shall) (?:use|go|keep|switch|adopt|stick|move|pin|drop|not)|let's (?:use|go|keep|switch|adopt|stick|move|pin|drop|not)|going with|go with|settled on|chose|chosen|choose|agreed|agree|switch(?:ing)? to|instead of|from now on|must|never|always|do not|don't|prefer|the plan is|standardi[sz]e on|approved|rejected)\b/i;
const NUMBER_RE = /\b\d[\d,._]*\b/;
const EXIT_RE = /\bexit(?:ed)?(?: with)?(?: code| status)?[:= ]\s*(-?\d{1,3})\b/i;
const FILE_EXT_NOISE = /^\d+(?:\.\d+)+$|^[\d.]+[a-z]{1,2}$|^(?:e\.g|i\.e|etc|vs|Mr|Dr)\.$/i;

/** Collapses whitespace and clips to `max` chars at a word boundary, marking the cut with `…`. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, Math.max(1, max - 1));
  const space = cut.lastIndexOf(" ");
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/**
 * Removes the engine's own injected blocks from `text`: a text that starts
 * with the ledger marker (other than an artifact stub) becomes empty, and
 * embedded summary or checkpoint blocks are cut out, so summaries never nest.
 */
export function stripLedgerBlocks(text: string): string {
  const lead = text.trimStart();
  if (lead.startsWith(LEDGER_MARKER) && !lead.startsWith(ARTIFACT_STUB_PREFIX)) return "";
  if (!text.includes(LEDGER_MARKER)) return text;
  // A scan by indexOf, linear: the equivalent regex rescanned to the end from every opening without `]` (quadratic).
  const parts: string[] = [];
  let pos = 0;
  BLOCK_OPEN.lastIndex = 0;
  for (let m = BLOCK_OPEN.exec(text); m; m = BLOCK_OPEN.exec(text)) {
    const close = text.indexOf("]", m.index + m[0].length);
    if (close < 0) break; // no later opening has a `]` either
    const endTag = `[/context-ledger ${m[1]}]`;
    const end = text.indexOf(endTag, close + 1);
    const stop = end < 0 ? text.length : end + endTag.length;
    parts.push(text.slice(pos, m.index));
    pos = stop;
    BLOCK_OPEN.lastIndex = stop;
    if (stop >= text.length) break;
  }
  parts.push(text.slice(pos));
  return parts.join("");
}

const BLOCK_OPEN = /\[context-ledger (summary|checkpoint)\b/g;

/** Splits text into sentences (also at line breaks); bounded by {@link SCAN_CHARS}. */
export function sentencesOf(text: string): string[] {
  return text
    .slice(0, SCAN_CHARS)
    .split(/(?<=[.!?])\s+(?=[A-Z0-9`"'([*-])|\n+/)
    .map((s) => s.replace(/^[\s>*#-]+/, "").trim())
    .filter((s) => s.length > 0);
}

/** The first sentence(s) of `text`, up to `max` chars. */
export function firstSentences(text: string, max: number): string {
  const sentences = sentencesOf(text.slice(0, max * 4));
  let out = "";
  for (const s of sentences) {
    const next = out ? `${out} ${s}` : s;
    if (next.length > max) break;
    out = next;
  }
  return out || clip(sentences[0] ?? "", max);
}

/** Sentences that state a decision or a rule ("we'll use", "never", "switch to" ...). */
export function decisionSentences(text: string, max: number): string[] {
  return sentencesOf(text)
    .filter((s) => DECISION_RE.test(s))
    .map((s) => clip(s, max));
}

/** Sentences that report an error or a failure ("checkout fails with a 502"). */
export function errorSentences(text: string, max: number): string[] {
  return sentencesOf(text)
    .filter((s) => !DECISION_RE.test(s) && ERROR_WORD_RE.test(s))
    .map((s) => clip(s, max));
}

/** Sentences that carry a number, a code or a quoted identifier and are neither decisions nor errors. */
export function factSentences(text: string, max: number): string[] {
  return sentencesOf(text)
    .filter(
      (s) =>
        !DECISION_RE.test(s) &&
        !ERROR_WORD_RE.test(s) &&
        (NUMBER_RE.test(s) || /`[^`]+`/.test(s) || codesIn(s).length > 0),
    )
    .map((s) => clip(s, max));
}

/** Artifact handles in `text`, in order, deduplicated. */
export function handlesIn(text: string): string[] {
  return findHandles(text.slice(0, SCAN_CHARS));
}

/**
 * Extensions a bare `name.ext` (no slash) must have to count as a file: `s.length` and `process.stdout.write` are code.
 */
const FILE_EXTENSIONS: ReadonlySet<string> = new Set(
  "ts tsx mts cts js jsx mjs cjs json json5 jsonl md mdx txt log yaml yml toml ini conf cfg env sh bash zsh fish ps1 py pyi rb go rs java kt kts c h cc cpp hpp cs php html htm css scss sass less xml csv tsv sql db sqlite lock pdf png jpg jpeg gif svg webp ico zip gz tgz tar bz2 xz ipynb vue svelte swift dart lua pl r scala ex exs erl hs ml tf tfvars gradle properties pem crt key bak patch diff wasm proto graphql gql dockerfile makefile mk cmake plist sln csproj".split(
    " ",
  ),
);

/** File-system paths and file names in `text` (URLs, handles, member accesses and calls excluded). */
export function pathsIn(text: string): string[] {
  const scrubbed = text.slice(0, SCAN_CHARS).replace(URL_RE, " ").replace(handlePattern(), " ");
  const found: string[] = [];
  for (const m of scrubbed.matchAll(PATH_RE)) {
    const p = m[0].replace(/[.,;:]+$/, "");
    // `fn(` right after: a call like process.stdout.write(...); `'+` right after: a fragment of a concatenated string.
    const after = scrubbed.slice(m.index + m[0].length, m.index + m[0].length + 2);
    if (after.startsWith("(") || /^['"`]\s?\+/.test(after)) continue;
    if (p.length < 3 || p.length > 200 || !/[A-Za-z]/.test(p) || FILE_EXT_NOISE.test(p) || /^\/+$/.test(p)) continue;
    const slash = p.includes("/");
    const ext = /\.([A-Za-z][A-Za-z0-9]{0,7})$/.exec(p)?.[1]?.toLowerCase();
    if (!slash && (ext === undefined || !FILE_EXTENSIONS.has(ext))) continue;
    // An extensionless absolute path of one segment (`/file`, `/tmp`) is too often a fragment of code or prose.
    if (
      slash &&
      ext === undefined &&
      p
        .replace(/^~?\/+/, "")
        .split("/")
        .filter(Boolean).length < 2
    )
      continue;
    found.push(p);
  }
  return unique(found);
}

/** Error codes (`ERR_X`, `ENOENT`, `E1042`, `TS2345`, `TypeError`, `HTTP 503` ...) in `text`. */
export function codesIn(text: string): string[] {
  return unique(text.slice(0, SCAN_CHARS).match(CODE_RE) ?? []);
}

/** Lines of `text` that look like errors, clipped, at most `limit`. */
export function errorLines(text: string, limit: number, max: number): string[] {
  const out: string[] = [];
  for (const line of text.slice(0, SCAN_CHARS).split("\n")) {
    if (out.length >= limit) break;
    const trimmed = line.trim();
    if (trimmed && !trimmed.startsWith(LEDGER_MARKER) && (ERROR_WORD_RE.test(trimmed) || ERROR_CODE_RE.test(trimmed)))
      out.push(clip(trimmed, max));
  }
  return unique(out);
}

/** The exit code a command output reports, if any. */
export function exitCodeIn(text: string): number | undefined {
  const m = EXIT_RE.exec(text.slice(0, SCAN_CHARS));
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** Appends `items` to `list` (in place) skipping duplicates, until `limit`; returns how many did not fit. */
export function pushBounded(list: string[], items: Iterable<string>, limit: number): number {
  let dropped = 0;
  for (const item of items) {
    if (!item || list.includes(item)) continue;
    if (list.length >= limit) dropped++;
    else list.push(item);
  }
  return dropped;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
