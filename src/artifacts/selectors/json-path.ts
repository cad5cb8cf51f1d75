import { describeValue, LedgerError } from "../../errors.js";

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

/** What a JSONPath matches in a document, read lazily: nothing is copied. */
export interface JsonPathMatches {
  /** Whether the path has a wildcard (the answer is then the list of every match). */
  multiple: boolean;
  /** Number of matches. */
  count: number;
  /** The matches in document order, produced as they are read. */
  values(): Iterable<unknown>;
  /** Where the walk stopped when nothing matched, e.g. "missing member `b` at $.a". */
  missing?: string;
}

/**
 * Matches parsed steps against a JSON value without building the list of
 * matches: a `$[*][*]` over a big document costs a walk, not a copy of every
 * value with its path. The `missing` explanation is the first failure at the
 * shallowest step, in document order.
 */
export function matchJsonPath(root: unknown, steps: JsonPathStep[]): JsonPathMatches {
  const count = countMatches(root, steps, 0);
  const result: JsonPathMatches = {
    multiple: steps.some((s) => "wildcard" in s),
    count,
    values: () => walk(root, steps, 0),
  };
  const missing = count === 0 ? firstMissing(root, steps) : undefined;
  if (missing !== undefined) result.missing = missing;
  return result;
}

function countMatches(value: unknown, steps: JsonPathStep[], i: number): number {
  if (i === steps.length) return 1;
  const step = steps[i] as JsonPathStep;
  if (!("wildcard" in step)) {
    const child = single(value, step);
    return child === NONE ? 0 : countMatches(child, steps, i + 1);
  }
  const last = i === steps.length - 1;
  let n = 0;
  if (Array.isArray(value)) {
    if (last) return value.length;
    for (const v of value) n += countMatches(v, steps, i + 1);
  } else if (isObject(value)) {
    for (const key in value) if (Object.hasOwn(value, key)) n += last ? 1 : countMatches(value[key], steps, i + 1);
  }
  return n;
}

function* walk(value: unknown, steps: JsonPathStep[], i: number): Generator<unknown> {
  if (i === steps.length) {
    yield value;
    return;
  }
  const step = steps[i] as JsonPathStep;
  if (!("wildcard" in step)) {
    const child = single(value, step);
    if (child !== NONE) yield* walk(child, steps, i + 1);
  } else if (Array.isArray(value)) {
    for (const v of value) yield* walk(v, steps, i + 1);
  } else if (isObject(value)) {
    for (const key in value) if (Object.hasOwn(value, key)) yield* walk(value[key], steps, i + 1);
  }
}

const NONE = Symbol("none");

/** The value a member or index step reaches, or {@link NONE}. */
function single(value: unknown, step: { key: string } | { index: number }): unknown {
  if ("index" in step) {
    if (!Array.isArray(value)) return NONE;
    const n = step.index < 0 ? value.length + step.index : step.index;
    return n >= 0 && n < value.length ? value[n] : NONE;
  }
  return isObject(value) && Object.hasOwn(value, step.key) ? value[step.key] : NONE;
}

/** The first failure at the shallowest step (document order within a step), walking depth first. */
function firstMissing(root: unknown, steps: JsonPathStep[]): string | undefined {
  let best: { depth: number; why: string } | undefined;
  // The path to the current value, formatted only when a failure is recorded.
  const trail: Array<string | number> = [];
  const at = (): string => `$${trail.map((t) => (typeof t === "number" ? `[${t}]` : `.${t}`)).join("")}`;
  const visit = (value: unknown, i: number): void => {
    if (i === steps.length || (best && best.depth <= i)) return;
    const step = steps[i] as JsonPathStep;
    if (!("wildcard" in step)) {
      const child = single(value, step);
      if (child === NONE) {
        best = { depth: i, why: whyNone(value, step, at()) };
        return;
      }
      trail.push("key" in step ? step.key : step.index < 0 ? (value as unknown[]).length + step.index : step.index);
      visit(child, i + 1);
      trail.pop();
    } else if (Array.isArray(value) || isObject(value)) {
      const keys: Iterable<string | number> = Array.isArray(value) ? value.keys() : Object.keys(value);
      for (const k of keys) {
        trail.push(k);
        visit((value as Record<string | number, unknown>)[k], i + 1);
        trail.pop();
      }
    } else {
      best = { depth: i, why: `no elements at ${at()} (${describeValue(value)})` };
    }
  };
  visit(root, 0);
  return best?.why;
}

/** Why a member or index step reaches nothing from `value` at `at`. */
function whyNone(value: unknown, step: { key: string } | { index: number }, at: string): string {
  if ("index" in step) {
    if (!Array.isArray(value)) return `no array at ${at}`;
    return `index ${step.index} out of range at ${at} (length ${value.length})`;
  }
  return isObject(value) ? `missing member \`${step.key}\` at ${at}` : `no object at ${at}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(path: string, at: number, message: string): LedgerError {
  return new LedgerError("selector_invalid", `${message} at index ${at} of JSONPath ${describeValue(path)}`);
}
