import { formatHandle, parseHandle, parseSelector, type Selector } from "../artifacts/index.js";
import { describeValue, LedgerError } from "../errors.js";
import { parseJsonOrThrow } from "../json.js";

/** The forms `ledger_fetch` accepts, named in every input error. */
export const ACCEPTED_FETCH_FORMS =
  'Accepted: {"handle":"ledger:v1:sha256:<64 hex>"} (the `ledger:` prefix may be left out; its first 8+ hex digits do where unique) plus either "lines":"1200-1210" (or "1200", or a number) or "selector":{"kind":"range","start":1200,"end":1210} (kinds headtail, head, tail, grep, range, json; a JSON string of that object works too), not both.';

/**
 * The handle as models send it: the full `ledger:v1:sha256:<hex>`, or without
 * the `ledger:` prefix (`v1:sha256:<hex>`, `sha256:<hex>`), surrounding spaces
 * or backticks ignored. Anything else throws `handle_invalid` naming the forms.
 */
export function normalizeFetchHandle(value: unknown): string {
  if (typeof value === "string") {
    const t = value.trim().replace(/^`+|`+$/g, "");
    const m = /^(?:ledger:)?(?:v1:)?sha256:([0-9a-f]{64})$/.exec(t);
    if (m?.[1]) return formatHandle(m[1]);
    try {
      return formatHandle(parseHandle(t));
    } catch (err) {
      throw new LedgerError("handle_invalid", `${(err as Error).message}. ${ACCEPTED_FETCH_FORMS}`, { cause: err });
    }
  }
  throw new LedgerError(
    "handle_invalid",
    `Expected \`handle\` to be a string, got ${describeValue(value)}. ${ACCEPTED_FETCH_FORMS}`,
  );
}

const RANGE = /^\s*(\d+)\s*(?:(?:-|–|\.\.|:|to)\s*(\d+)\s*)?$/;

/**
 * The one line-range syntax of every reader (the tool's `lines`, the CLI's `--lines`, the chat's
 * `lines A-B`): "1200-1210" (also `1200..1210`, `1200:1210`, `1200 to 1210`) or "1200" for one line,
 * 1-based and inclusive. Undefined when `text` is not a range.
 */
export function parseLineRange(text: string): { start: number; end: number } | undefined {
  const m = RANGE.exec(text);
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = Number(m[2] ?? m[1]);
  return Number.isSafeInteger(start) && Number.isSafeInteger(end) ? { start, end } : undefined;
}

/**
 * The selector of a fetch call: `lines` ("1200-1210", "1200", 1200) or `selector` (object or its JSON), at most one.
 */
export function fetchSelector(params: Record<string, unknown>): Selector {
  const { lines, selector } = params;
  // The earlier tool shape: a bare `head`/`tail` kind with a line count (`{"selector":"head","lines":4}`).
  if ((selector === "head" || selector === "tail") && typeof lines === "number")
    return withForms(() => parseSelector({ kind: selector, lines }));
  if (lines !== undefined && lines !== null && selector !== undefined && selector !== null) {
    throw new LedgerError(
      "input_invalid",
      `Expected either \`lines\` or \`selector\`, got both. ${ACCEPTED_FETCH_FORMS}`,
    );
  }
  if (lines !== undefined && lines !== null) {
    const range =
      typeof lines === "number"
        ? parseLineRange(String(lines))
        : typeof lines === "string"
          ? parseLineRange(lines)
          : undefined;
    if (!range) {
      throw new LedgerError(
        "input_invalid",
        `Expected \`lines\` like "1200-1210" or "1200", got ${describeValue(lines)}. ${ACCEPTED_FETCH_FORMS}`,
      );
    }
    return withForms(() => parseSelector({ kind: "range", ...range }));
  }
  if (typeof selector === "string" && selector.trim().startsWith("{")) {
    const parsed = parseJsonOrThrow(
      selector,
      "selector_invalid",
      () =>
        `Expected \`selector\` to be an object or its JSON, got unparseable ${describeValue(selector)}. ${ACCEPTED_FETCH_FORMS}`,
    );
    return withForms(() => parseSelector(parsed));
  }
  return withForms(() => parseSelector(selector));
}

function withForms<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof LedgerError && (err.code === "selector_invalid" || err.code === "input_invalid")) {
      throw new LedgerError(err.code, `${err.message}. ${ACCEPTED_FETCH_FORMS}`, { cause: err });
    }
    throw err;
  }
}
