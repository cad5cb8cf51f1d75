import { describeValue, LedgerError } from "../../errors.js";
import { parseJsonPath } from "./json-path.js";
import { MAX_GREP_CONTEXT, SELECTOR_KINDS, type Selector } from "./selector-types.js";

const MAX_LINE_NUMBER = 100_000_000;

/**
 * Parses a selector from untrusted input (tool parameters, CLI). Accepts an
 * object with `kind`, or the bare kind names `headtail`, `head`, `tail`.
 * Undefined means `headtail`. Throws `selector_invalid` saying what was wrong.
 */
export function parseSelector(input: unknown): Selector {
  if (input === undefined || input === null) return { kind: "headtail" };
  if (typeof input === "string") {
    if (input === "headtail" || input === "head" || input === "tail") return { kind: input };
    throw invalid(`Expected a selector object or one of \`headtail\`, \`head\`, \`tail\`, got ${describeValue(input)}`);
  }
  if (typeof input !== "object" || Array.isArray(input)) {
    throw invalid(`Expected a selector object like {"kind":"head","lines":50}, got ${describeValue(input)}`);
  }
  const o = input as Record<string, unknown>;
  const kind = o.kind;
  const allowed: Record<string, string[]> = {
    headtail: [],
    head: ["lines"],
    tail: ["lines"],
    grep: ["pattern", "flags", "context"],
    range: ["start", "end"],
    json: ["path"],
  };
  if (typeof kind !== "string" || !(SELECTOR_KINDS as readonly string[]).includes(kind)) {
    throw invalid(
      `Expected \`kind\` to be one of ${SELECTOR_KINDS.map((k) => `\`${k}\``).join(", ")}, got ${describeValue(kind)}`,
    );
  }
  for (const key of Object.keys(o)) {
    if (key !== "kind" && !allowed[kind]?.includes(key)) {
      throw invalid(
        `Expected only ${["kind", ...(allowed[kind] ?? [])].map((k) => `\`${k}\``).join(", ")} in a \`${kind}\` selector, got \`${key}\``,
      );
    }
  }
  switch (kind) {
    case "headtail":
      return { kind };
    case "head":
    case "tail":
      return o.lines === undefined ? { kind } : { kind, lines: int(o.lines, "lines", 1, MAX_LINE_NUMBER) };
    case "range": {
      const start = int(o.start, "start", 1, MAX_LINE_NUMBER);
      const end = int(o.end, "end", 1, MAX_LINE_NUMBER);
      if (end < start) throw invalid(`Expected \`end\` >= \`start\` (${start}), got ${describeValue(o.end)}`);
      return { kind, start, end };
    }
    case "grep": {
      if (typeof o.pattern !== "string" || o.pattern.length === 0) {
        throw invalid(`Expected \`pattern\` to be a non-empty string, got ${describeValue(o.pattern)}`);
      }
      const flags = o.flags === undefined ? "" : o.flags;
      if (typeof flags !== "string" || !/^(?!.*(.).*\1)[iu]*$/.test(flags)) {
        throw invalid(
          `Expected \`flags\` to be made of \`i\` and \`u\` at most once each, got ${describeValue(o.flags)}`,
        );
      }
      const context = o.context === undefined ? 0 : int(o.context, "context", 0, MAX_GREP_CONTEXT);
      return { kind, pattern: o.pattern, flags, context };
    }
    default: {
      if (typeof o.path !== "string" || o.path.length === 0) {
        throw invalid(
          `Expected \`path\` to be a JSONPath string such as \`$.items[0].name\`, got ${describeValue(o.path)}`,
        );
      }
      parseJsonPath(o.path); // refuse an unsupported path before any artifact is read
      return { kind: "json", path: o.path };
    }
  }
}

function int(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`Expected \`${name}\` to be an integer between ${min} and ${max}, got ${describeValue(value)}`);
  }
  return value;
}

function invalid(message: string): LedgerError {
  return new LedgerError("selector_invalid", message);
}
