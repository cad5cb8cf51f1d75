import { LedgerError, type LedgerErrorCode } from "./errors.js";

/**
 * Parses JSON text, or gives `undefined` when it is not JSON (JSON itself never
 * yields `undefined`, so the answer is unambiguous). For input whose failure is an
 * expected case, not an error: tool output that may or may not be JSON, a line torn
 * by a crash, a half-written lock file.
 */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Parses JSON text whose failure is an error: a {@link LedgerError} with `code` and the message `expected(reason)`
 * (`reason`: what the parser said), the parser's error as its cause.
 */
export function parseJsonOrThrow(text: string, code: LedgerErrorCode, expected: (reason: string) => string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new LedgerError(code, expected((err as Error).message), { cause: err });
  }
}

/**
 * JSON text that never throws: a reference back into its own path becomes `"[cycle]"` (a value repeated elsewhere is
 * written again: it counts), a BigInt its digits, and a value that cannot be written at all (a throwing getter or
 * `toJSON`) `""`. `undefined` and functions give `""` as well.
 */
export function safeJson(value: unknown): string {
  try {
    const path: object[] = [];
    const json = JSON.stringify(value, function (this: unknown, _key: string, v: unknown) {
      if (typeof v === "bigint") return v.toString();
      if (v !== null && typeof v === "object") {
        // `this` is the holder of `v`: unwind the path to it, so only an ancestor counts as a cycle.
        while (path.length > 0 && path[path.length - 1] !== this) path.pop();
        if (path.includes(v)) return "[cycle]";
        path.push(v);
      }
      return v;
    }) as string | undefined;
    return json ?? "";
  } catch {
    return "";
  }
}
