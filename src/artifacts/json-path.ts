import { describeValue, LedgerError } from "../errors.js";

/** One step of a parsed JSONPath. */
export type JsonPathStep = { key: string } | { index: number } | { wildcard: true };

/**
 * Parses the supported JSONPath subset:
 * - `$` the root (required first);
 * - `.name` a member (letters, digits, `_`, `$`, `-`; not starting with a digit);
 * - `['name']` or `["name"]` a member with any characters (`\\` escapes the quote);
 * - `[n]` an array element, negative `n` counts from the end (`[-1]` is the last);
 * - `[*]` or `.*` every element or member value.
 * Not supported: `..` (recursive descent), filters `[?()]`, slices `[a:b]`, unions `[a,b]`.
 * Throws `selector_invalid` naming the offending position.
 */
export function parseJsonPath(path: string): JsonPathStep[] {
  if (!path.startsWith("$")) throw invalid(path, 0, "Expected the path to start with `$`");
  const steps: JsonPathStep[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === "." && path[i + 1] === ".") throw invalid(path, i, "Recursive descent `..` is not supported");
    if (c === ".") {
      if (path[i + 1] === "*") {
        steps.push({ wildcard: true });
        i += 2;
        continue;
      }
      const m = /^[A-Za-z_$][\w$-]*/.exec(path.slice(i + 1));
      if (!m) throw invalid(path, i + 1, "Expected a member name after `.` (use ['...'] for other characters)");
      steps.push({ key: m[0] });
      i += 1 + m[0].length;
      continue;
    }
    if (c === "[") {
      const rest = path.slice(i);
      const star = /^\[\*\]/.exec(rest);
      const num = /^\[(-?\d{1,9})\]/.exec(rest);
      if (star) {
        steps.push({ wildcard: true });
        i += star[0].length;
        continue;
      }
      if (num) {
        steps.push({ index: Number(num[1]) });
        i += num[0].length;
        continue;
      }
      const quote = path[i + 1];
      if (quote === "'" || quote === '"') {
        let j = i + 2;
        let key = "";
        while (j < path.length && path[j] !== quote) {
          if (path[j] === "\\" && j + 1 < path.length) j++;
          key += path[j];
          j++;
        }
        if (path[j] !== quote || path[j + 1] !== "]")
          throw invalid(path, i, `Expected a closing ${quote}] for the quoted member`);
        steps.push({ key });
        i = j + 2;
        continue;
      }
      throw invalid(path, i, "Expected `[n]`, `[*]` or a quoted member like `['name']`");
    }
    throw invalid(path, i, `Expected \`.\` or \`[\`, got \`${c}\``);
  }
  return steps;
}

/** The result of {@link evaluateJsonPath}. */
export interface JsonPathResult {
  /** Whether the path has a wildcard (values is then a list of every match). */
  multiple: boolean;
  values: unknown[];
  /** Where the walk stopped when nothing matched, e.g. "missing member `b` at $.a". */
  missing?: string;
}

/** Evaluates parsed steps against a JSON value. */
export function evaluateJsonPath(root: unknown, steps: JsonPathStep[]): JsonPathResult {
  let current: Array<{ value: unknown; at: string }> = [{ value: root, at: "$" }];
  let missing: string | undefined;
  for (const step of steps) {
    const next: typeof current = [];
    for (const { value, at } of current) {
      if ("wildcard" in step) {
        if (Array.isArray(value)) value.forEach((v, n) => next.push({ value: v, at: `${at}[${n}]` }));
        else if (isObject(value)) for (const [k, v] of Object.entries(value)) next.push({ value: v, at: `${at}.${k}` });
        else missing ??= `no elements at ${at} (${describeValue(value)})`;
      } else if ("index" in step) {
        if (!Array.isArray(value)) {
          missing ??= `no array at ${at}`;
          continue;
        }
        const n = step.index < 0 ? value.length + step.index : step.index;
        if (n >= 0 && n < value.length) next.push({ value: value[n], at: `${at}[${n}]` });
        else missing ??= `index ${step.index} out of range at ${at} (length ${value.length})`;
      } else if (isObject(value) && Object.hasOwn(value, step.key)) {
        next.push({ value: value[step.key], at: `${at}.${step.key}` });
      } else {
        missing ??= isObject(value) ? `missing member \`${step.key}\` at ${at}` : `no object at ${at}`;
      }
    }
    current = next;
  }
  const multiple = steps.some((s) => "wildcard" in s);
  const result: JsonPathResult = { multiple, values: current.map((c) => c.value) };
  if (current.length === 0 && missing) result.missing = missing;
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(path: string, at: number, message: string): LedgerError {
  return new LedgerError("selector_invalid", `${message} at index ${at} of JSONPath ${describeValue(path)}`);
}
