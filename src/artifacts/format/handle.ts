import { createHash } from "node:crypto";
import { describeValue, LedgerError } from "../../errors.js";

/** Every artifact handle starts with this prefix; the rest is 64 lowercase hex digits. */
export const HANDLE_PREFIX = "ledger:v1:sha256:";
/** Exact length of a handle: prefix plus 64 hex digits. */
export const HANDLE_LENGTH = HANDLE_PREFIX.length + 64;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Parses a handle strictly and returns its 64-hex SHA-256 digest. Throws
 * `handle_invalid` saying what was wrong: not a string, non-ASCII, whitespace,
 * surrounding text, wrong prefix, wrong length, uppercase or non-hex digits.
 */
export function parseHandle(text: unknown): string {
  if (typeof text !== "string") {
    throw invalid(`Expected a handle string \`${HANDLE_PREFIX}<64 lowercase hex>\`, got ${describeValue(text)}`);
  }
  // eslint-disable-next-line no-control-regex
  const nonAscii = /[^\x00-\x7f]/.exec(text);
  if (nonAscii) {
    throw invalid(
      `Expected an ASCII-only handle, got a non-ASCII character at index ${nonAscii.index} in ${describeValue(text)}`,
    );
  }
  const space = /\s/.exec(text);
  if (space) {
    throw invalid(
      `Expected a handle without whitespace, got whitespace at index ${space.index} in ${describeValue(text)}`,
    );
  }
  const at = text.indexOf(HANDLE_PREFIX);
  if (at < 0) {
    throw invalid(`Expected a handle starting with \`${HANDLE_PREFIX}\`, got ${describeValue(text)}`);
  }
  if (at > 0) {
    throw invalid(
      `Expected the handle to start at the first character, got ${at} leading characters in ${describeValue(text)}`,
    );
  }
  const hex = text.slice(HANDLE_PREFIX.length);
  if (hex.length !== 64) {
    throw invalid(
      `Expected exactly 64 hex digits after \`${HANDLE_PREFIX}\`, got ${hex.length} characters in ${describeValue(text)}`,
    );
  }
  if (!HEX64.test(hex)) {
    const bad = /[^0-9a-f]/.exec(hex);
    const ch = bad?.[0] ?? "?";
    const why = /[A-F]/.test(ch) ? "uppercase hex digit" : "non-hex character";
    throw invalid(
      `Expected 64 lowercase hex digits, got ${why} \`${ch}\` at digit ${(bad?.index ?? 0) + 1} in ${describeValue(text)}`,
    );
  }
  return hex;
}

/** True when `text` is exactly a valid handle (see {@link parseHandle}). */
export function isHandle(text: unknown): text is string {
  return (
    typeof text === "string" &&
    text.length === HANDLE_LENGTH &&
    text.startsWith(HANDLE_PREFIX) &&
    HEX64.test(text.slice(HANDLE_PREFIX.length))
  );
}

/** Formats a 64-hex digest as a handle; throws `handle_invalid` on anything else. */
export function formatHandle(hex: string): string {
  if (!HEX64.test(hex)) throw invalid(`Expected 64 lowercase hex digits, got ${describeValue(hex)}`);
  return HANDLE_PREFIX + hex;
}

/** SHA-256 of `bytes` as 64 lowercase hex digits. Strings are hashed as UTF-8. */
export function sha256Hex(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The handle of `bytes` (strings as UTF-8): pure and synchronous, no store needed. */
export function handleForBytes(bytes: string | Uint8Array): string {
  return HANDLE_PREFIX + sha256Hex(bytes);
}

const HANDLE_SOURCE = `${HANDLE_PREFIX}[0-9a-f]{64}`;

/** A fresh global regex matching every handle inside a text (fresh: a shared global regex keeps `lastIndex`). */
export function handlePattern(): RegExp {
  return new RegExp(HANDLE_SOURCE, "g");
}

/** The distinct handles cited in `text`, in order of first appearance. */
export function findHandles(text: string): string[] {
  return [...new Set(text.match(handlePattern()) ?? [])];
}

/** The first handle cited in `text`, or `undefined`. */
export function firstHandle(text: string): string | undefined {
  return handlePattern().exec(text)?.[0];
}

/** Hex digits of the short handle stubs print for a person to type (`artifacts/store/handle-prefix.ts` resolves it). */
export const SHORT_HANDLE_DIGITS = 12;

/** The first {@link SHORT_HANDLE_DIGITS} hex digits of a handle; throws `handle_invalid` as {@link parseHandle}. */
export function shortHandleOf(handle: string): string {
  return parseHandle(handle).slice(0, SHORT_HANDLE_DIGITS);
}

function invalid(message: string): LedgerError {
  return new LedgerError("handle_invalid", message);
}
