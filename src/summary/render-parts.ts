/**
 * The pieces a rendered summary is made of: one line per detailed turn, and
 * the condensed digest block whose lists share a char budget round-robin so
 * that every kind of fact (decisions, errors, handles, numbers, files,
 * requests) keeps some room however many of one kind there are.
 */
import { clip } from "./extract-facts.js";
import type { SummaryDigest, SummaryEntry, ToolRecord } from "./summary-state.js";

/** Rewrites a piece of text before it is rendered (secret redaction). */
export type RedactFn = (text: string) => string;

/** Max chars of one detailed turn line. */
export const ENTRY_LINE_CHARS = 700;

const TOOLS_PER_LINE = 6;

/**
 * One detailed line for turn `turn` (1-based). Parts that would push it past {@link ENTRY_LINE_CHARS} are left out.
 * Without `withUser` the user's message is left out (the block quotes it whole elsewhere). Empty when the entry holds
 * nothing to tell.
 */
export function renderEntryLine(e: SummaryEntry, turn: number, redact: RedactFn, withUser = true): string {
  const head = `Turn ${turn}:`;
  const toolHandles = new Set(e.tools.flatMap((t) => (t.handle ? [t.handle] : [])));
  const parts: string[] = [];
  if (e.user && withUser) parts.push(`User: "${redact(e.user)}"`);
  if (e.assistant) parts.push(`Answer: "${clip(redact(e.assistant), 200)}"`);
  if (e.decisions.length) parts.push(`Decided: ${e.decisions.map((d) => clip(redact(d), 160)).join("; ")}`);
  if (e.tools.length) {
    const shown = e.tools.slice(0, TOOLS_PER_LINE).map((t) => toolText(t, redact));
    const more = e.tools.length - shown.length + e.toolsOmitted;
    parts.push(`Tools: ${shown.join("; ")}${more > 0 ? `; +${more} more` : ""}`);
  }
  if (e.errors.length) parts.push(`Errors: ${e.errors.map((x) => clip(redact(x), 120)).join("; ")}`);
  const loose = e.handles.filter((h) => !toolHandles.has(h));
  if (loose.length) parts.push(`Handles: ${loose.join(" ")}`);
  const shown = parts.join(" ");
  const files = e.files.filter((f) => !shown.includes(f));
  if (files.length) parts.push(`Files: ${files.map((f) => clip(redact(f), 80)).join(", ")}`);
  const notes = e.facts.filter((f) => !shown.includes(f));
  if (notes.length) parts.push(`Notes: ${notes.map((f) => clip(redact(f), 140)).join("; ")}`);
  if (parts.length === 0) return "";
  let line = head;
  for (const part of parts) {
    if (line.length + 3 + part.length <= ENTRY_LINE_CHARS) line += `${line === head ? " " : " | "}${part}`;
  }
  return line;
}

function toolText(t: ToolRecord, redact: RedactFn): string {
  let s = t.args ? `${t.name}(${clip(redact(t.args), 90)})` : t.name;
  s += t.outcome === "error" ? " failed" : t.outcome === "ok" ? " ok" : " no result";
  if (t.exitCode !== undefined && t.exitCode !== 0) s += ` exit ${t.exitCode}`;
  if (t.error && t.outcome === "error") s += ` "${clip(redact(t.error), 100)}"`;
  if (t.handle) s += ` -> ${t.handle}`;
  return s;
}

/** Result of {@link renderDigestBlock}. */
export interface DigestBlock {
  text: string;
  /** Items of the digest left out for lack of room. */
  omitted: number;
}

/** Share of the condensed block each list may fill before the rest is dealt round-robin. */
const SHARES: Record<string, number> = {
  Decided: 0.22,
  Errors: 0.12,
  Handles: 0.25,
  Notes: 0.2,
  Files: 0.11,
  Requests: 0.1,
};

interface DigestList {
  label: string;
  items: string[];
  sep: string;
}

/**
 * The condensed block for turns `firstTurn..lastTurn`, at most `budget` chars; without `withRequests` the user's
 * requests are left out (the block quotes them whole elsewhere).
 * Items are added round-robin across lists in priority order until the
 * budget is spent; each list names how many of its items it left out.
 */
export function renderDigestBlock(
  d: SummaryDigest,
  firstTurn: number,
  budget: number,
  { redact, withRequests = true }: { redact: RedactFn; withRequests?: boolean },
): DigestBlock {
  const tools = Object.entries(d.toolNames)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 8)
    .map(([name, count]) => `${name} x${count}`)
    .join(", ");
  const title =
    `Turns ${firstTurn}-${firstTurn + d.turns - 1} (condensed; ${d.toolCalls} tool calls, ${d.failedCalls} failed` +
    `${tools ? `: ${tools}` : ""}):`;
  const requests = dedupeShapes(d.requests.map((x) => clip(redact(x), 100)));
  const errors = compactErrors(d.errors);
  const addsToErrors = (note: string): boolean =>
    /\d|[A-Z]{2,}/.test(errors.reduce((n, code) => n.split(code).join(""), note));
  const lists: DigestList[] = [
    { label: "Decided", items: d.decisions.map((x) => compactDecision(redact(x))), sep: "; " },
    { label: "Errors", items: errors.map((x) => clip(redact(x), 100)), sep: "; " },
    { label: "Handles", items: d.handles, sep: " " },
    { label: "Notes", items: dedupeShapes(d.facts.map((x) => compactNote(redact(x)))).filter(addsToErrors), sep: "; " },
    { label: "Files", items: d.files.map((x) => clip(redact(x), 80)), sep: ", " },
    { label: "Requests", items: withRequests ? requests : [], sep: "; " },
  ].filter((l) => l.items.length > 0);
  const taken = lists.map(() => 0);
  const shares = lists.map((l) => SHARES[l.label] ?? 0.1);
  const lineLen = (i: number, n: number): number => {
    const l = lists[i]!;
    if (n === 0) return 0;
    const body = l.items.slice(0, n).join(l.sep).length;
    const more = l.items.length - n;
    return 3 + l.label.length + 2 + body + (more > 0 ? ` (+${more} more)`.length : 0);
  };
  let used = title.length + (d.omitted > 0 ? ` (+${d.omitted} more in the record)`.length + 1 : 0);
  for (let i = 0; i < lists.length; i++) used += 22; // room for each list's "(+N more)" once it is cut
  if (used > budget) return { text: "", omitted: countItems(lists) };
  // First each list fills its own share, then the rest is dealt round-robin.
  const room = budget - used;
  lists.forEach((l, i) => {
    while (taken[i]! < l.items.length) {
      const n = taken[i]!;
      const delta = lineLen(i, n + 1) - lineLen(i, n);
      if (lineLen(i, n + 1) > room * shares[i]! || used + delta > budget) break;
      used += delta;
      taken[i] = n + 1;
    }
  });
  let progress = true;
  while (progress) {
    progress = false;
    for (let i = 0; i < lists.length; i++) {
      const n = taken[i]!;
      if (n >= lists[i]!.items.length) continue;
      const delta = lineLen(i, n + 1) - lineLen(i, n);
      if (used + delta > budget) continue;
      used += delta;
      taken[i] = n + 1;
      progress = true;
    }
  }
  const lines = [title];
  let omitted = d.omitted;
  lists.forEach((l, i) => {
    const n = taken[i]!;
    omitted += l.items.length - n;
    if (n === 0) {
      lines.push(`- ${l.label}: (${l.items.length} in the record)`);
      return;
    }
    const more = l.items.length - n;
    lines.push(`- ${l.label}: ${l.items.slice(0, n).join(l.sep)}${more > 0 ? ` (+${more} more)` : ""}`);
  });
  if (d.omitted > 0) lines.push(`- (+${d.omitted} more in the record)`);
  const text = lines.join("\n");
  return text.length <= budget ? { text, omitted } : { text: clip(text, budget), omitted };
}

/** A decision without its lead-in ("Agreed with the team: ..."), clipped. */
function compactDecision(sentence: string): string {
  const m = /^[^:;]{1,40}[:;]\s+/.exec(sentence);
  return clip((m ? sentence.slice(m[0].length) : sentence).replace(/[.!]+$/, ""), 130);
}

/** The words around a sentence's first number (what the number measures), or the clipped sentence. */
function compactNote(sentence: string): string {
  const words = sentence.replace(/[.!]+$/, "").split(/\s+/);
  const at = words.findIndex((w) => /\d/.test(w));
  if (at < 0) return clip(sentence, 100);
  return clip(words.slice(Math.max(0, at - 5), at + 6).join(" "), 100);
}

/** Error lists without bare exit codes (the tool records carry them) and lines that only repeat a listed code. */
function compactErrors(errors: readonly string[]): string[] {
  const codes = errors.filter((e) => !/\s/.test(e) || /^(?:HTTP|SQLSTATE) \S+$/.test(e));
  return errors.filter(
    (e) => !/^exit(?: code| status)? -?\d+$/i.test(e) && (codes.includes(e) || !codes.some((c) => e.includes(c))),
  );
}

/** Collapses items that differ only in their numbers (the same templated line) into the newest one, counted. */
function dedupeShapes(items: readonly string[]): string[] {
  const order: string[] = [];
  const newest = new Map<string, { item: string; count: number }>();
  for (const item of items) {
    const shape = item.replace(/\d+/g, "#");
    const seen = newest.get(shape);
    if (seen) newest.set(shape, { item, count: seen.count + 1 });
    else {
      order.push(shape);
      newest.set(shape, { item, count: 1 });
    }
  }
  return order.map((shape) => {
    const { item, count } = newest.get(shape)!;
    return count > 1 ? `${item} (x${count})` : item;
  });
}

function countItems(lists: DigestList[]): number {
  return lists.reduce((sum, l) => sum + l.items.length, 0);
}
