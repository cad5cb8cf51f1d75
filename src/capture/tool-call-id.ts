/**
 * Tool-call ids as the host rewrites them.
 *
 * Every OpenClaw line from 2026.4.24 to 2026.9.6 ships the same sanitiser
 * (`dist/tool-call-id-*.js`: `sanitizeToolCallId`, `makeUniqueToolId`,
 * `createOccurrenceAwareResolver`, driven by `sanitizeToolCallIdsForCloudCodeAssist`);
 * from 2026.8.2 the rewritten id is what the transcript stores and what the
 * engine sees, while the tool hooks (`after_tool_call`) see the provider's id. The
 * forms it produces from a raw id:
 * - `strict`: letters and digits only (`call_t1_r1` → `callt1r1`), at most 40
 *   chars; a repeated id gets the sha256 of the raw id (8 hex) appended to a
 *   base cut to 32 chars, then `x2`, `x3`… suffixes;
 * - `strict9` (Mistral): the first 9 letters/digits, or a 9-hex sha256 when shorter;
 * - a repeated id in `openai` style: `call_` + 24 hex of sha256(`<id>:<n>:<attempt>`);
 * - native ids it keeps (`toolu_…` with preserveNativeAnthropicToolUseIds, Kimi `functions.x:1`).
 * Matching on these forms finds candidates; a content check decides.
 */
import { createHash } from "node:crypto";

const STRICT_MAX = 40;
const STRICT9 = 9;

/** Letters and digits of `id`: the normalised key both sides are compared by. */
export function normalizeToolCallId(id: string): string {
  return id.replace(/[^a-zA-Z0-9]/g, "");
}

function sha256Prefix(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** The host's `sanitizeToolCallId(id, "strict")`. */
export function strictToolCallId(id: string): string {
  if (/^functions\.[A-Za-z0-9_-]+:\d+$/.test(id)) return id;
  const alnum = normalizeToolCallId(id);
  return alnum.length > 0 ? alnum : "sanitizedtoolid";
}

/** The host's `sanitizeToolCallId(id, "strict9")`. */
export function strict9ToolCallId(id: string): string {
  const alnum = normalizeToolCallId(id);
  if (alnum.length >= STRICT9) return alnum.slice(0, STRICT9);
  return sha256Prefix(alnum.length > 0 ? alnum : "sanitized", STRICT9);
}

/**
 * Every id the host may store for a provider's raw tool-call id (first
 * occurrence and the first few repeats), the raw id included.
 */
export function hostToolCallIdForms(rawId: string): Set<string> {
  const forms = new Set<string>([rawId]);
  // createOccurrenceAwareResolver seeds makeUniqueToolId with the id, `<id>:<n>` for its
  // n-th repeat, and `<id>:tool_result:<n>` for a result without a call.
  const seeds = [rawId, `${rawId}:2`, `${rawId}:3`, `${rawId}:4`, `${rawId}:tool_result:1`, `${rawId}:tool_result:2`];
  for (const seed of seeds) {
    const base = strictToolCallId(seed).slice(0, STRICT_MAX);
    forms.add(base);
    const hash = sha256Prefix(seed, 8);
    const candidate = `${base.length > STRICT_MAX - hash.length ? base.slice(0, STRICT_MAX - hash.length) : base}${hash}`;
    forms.add(candidate);
    for (let i = 2; i <= 4; i++) forms.add(`${candidate.slice(0, STRICT_MAX - `x${i}`.length)}x${i}`);
    forms.add(strict9ToolCallId(seed));
    for (let i = 0; i < 4; i++) forms.add(sha256Prefix(`${seed}:${i}`, STRICT9));
  }
  // Repeats in `openai` duplicate style.
  for (let occurrence = 2; occurrence <= 4; occurrence++)
    forms.add(`call_${sha256Prefix(`${rawId}:${occurrence}:0`, 24)}`);
  return forms;
}

/**
 * True when the host may have stored `rawId` (what the provider and the
 * tool hooks saw) as `hostId` (what the transcript and the engine see): equal
 * normalised keys, or one of the host's rewrite forms. Never decides alone:
 * ids repeat, so a content check must confirm the link.
 */
export function toolCallIdsMatch(rawId: string, hostId: string): boolean {
  return toolCallIdMatcher(rawId)(hostId);
}

/**
 * {@link toolCallIdsMatch} for one raw id against many host ids (a capture index compares
 * every capture of a session with each result): a host id that cannot be a rewrite form is
 * ruled out without hashing, and the forms (about forty SHA-256 digests) are computed once,
 * on the first id that needs them.
 */
export function toolCallIdMatcher(rawId: string): (hostId: string) => boolean {
  const key = normalizeToolCallId(rawId);
  let forms: Set<string> | undefined;
  return (hostId) =>
    rawId === hostId ||
    (key.length > 0 && key === normalizeToolCallId(hostId)) ||
    (mayBeRewrittenForm(rawId, key, hostId) && (forms ??= hostToolCallIdForms(rawId)).has(hostId));
}

// The host's duplicate-style `openai` repeats.
const OPENAI_REPEAT = /^call_[0-9a-f]{24}$/;
// A strict9 form made of a hash (an id with fewer than 9 letters and digits) and the hashed strict9 repeats.
const HEX9 = /^[0-9a-f]{9}$/;
// Every strict form (a repeat's hash appended or not) starts with its base cut to this many chars.
const STRICT_HASHED_BASE = STRICT_MAX - 8;

/**
 * False when `hostId` is none of {@link hostToolCallIdForms}`(rawId)` (`a`: its letters and digits), decided
 * without hashing. Every form but the raw id is at most 40 chars and is a strict9 form (9 chars), an `openai`
 * repeat, or starts with the first 32 chars of its strict base, which are those of the id's letters and digits
 * (or of the Kimi id itself, kept whole).
 */
export function mayBeRewrittenForm(rawId: string, a: string, hostId: string): boolean {
  if (hostId.length > STRICT_MAX) return false;
  if (hostId.length === STRICT9 && (HEX9.test(hostId) || hostId.startsWith(a.slice(0, STRICT9)))) return true;
  if (OPENAI_REPEAT.test(hostId)) return true;
  return hostId.startsWith(a.slice(0, STRICT_HASHED_BASE)) || hostId.startsWith(rawId.slice(0, STRICT_HASHED_BASE));
}
