import { describeValue, LedgerError } from "./errors.js";

/** Longest grep pattern accepted. */
const MAX_PATTERN_LENGTH = 200;
/** Most unbounded quantifiers in one pattern; a `{n,m}` with m over 32 counts as unbounded. */
const MAX_UNBOUNDED_QUANTIFIERS = 4;

/**
 * Longest input one regex execution sees, by number of unbounded quantifiers
 * (k). A backtracking match over n chars costs up to about n^(k+1) steps, so
 * the window shrinks as k grows to keep one execution near 10^7 steps.
 */
const WINDOW_BY_UNBOUNDED = [1_000_000, 1_000, 256, 64, 32] as const;

/** A compiled, vetted grep pattern and the input window it may safely see. */
export interface SafeRegex {
  regex: RegExp;
  /** Lines longer than this are matched in overlapping windows of this size. */
  windowChars: number;
  unboundedQuantifiers: number;
}

interface Group {
  hasQuantifier: boolean;
  hasAlternation: boolean;
}

/**
 * Compiles a grep pattern after refusing (`pattern_refused`) what makes a
 * backtracking engine exponential or unbounded: patterns over
 * {@link MAX_PATTERN_LENGTH} chars, backreferences, a repeated group that
 * itself repeats or alternates (`(a+)+`, `(a|aa)*`), and more than
 * {@link MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers. What is left is
 * polynomial; `windowChars` bounds the input of one execution and the caller
 * bounds total time. A syntax error is `selector_invalid`.
 */
export function compileSafeRegex(pattern: string, flags = ""): SafeRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw refused(`Expected a pattern of at most ${MAX_PATTERN_LENGTH} characters, got ${pattern.length}`);
  }
  const stack: Group[] = [{ hasQuantifier: false, hasAlternation: false }];
  const top = (): Group => stack[stack.length - 1] as Group;
  let lastGroup: Group | undefined;
  let canQuantify = false;
  let unbounded = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === "\\") {
      const n = pattern[i + 1] ?? "";
      if (/[1-9]/.test(n) || n === "k") throw refused(`Expected no backreferences, got \`\\${n}\` at index ${i}`);
      // `\u{1F600}` is one escape; anything else after `\u{` is read on, never skipped unread.
      const codePoint = n === "u" ? /^\\u\{[0-9a-fA-F]{1,6}\}/.exec(pattern.slice(i)) : null;
      i += codePoint ? codePoint[0].length : 2;
      [lastGroup, canQuantify] = [undefined, true];
      continue;
    }
    if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1;
      i = j + 1;
      [lastGroup, canQuantify] = [undefined, true];
      continue;
    }
    if (c === "(") {
      stack.push({ hasQuantifier: false, hasAlternation: false });
      i += groupOpenerLength(pattern, i);
      [lastGroup, canQuantify] = [undefined, false];
      continue;
    }
    if (c === ")") {
      const group = stack.length > 1 ? (stack.pop() as Group) : { hasQuantifier: false, hasAlternation: false };
      if (group.hasQuantifier) top().hasQuantifier = true;
      i++;
      [lastGroup, canQuantify] = [group, true];
      continue;
    }
    if (c === "|") {
      top().hasAlternation = true;
      i++;
      [lastGroup, canQuantify] = [undefined, false];
      continue;
    }
    const quant = canQuantify ? /^(?:[*+?]|\{(\d+)(,(\d*))?\})/.exec(pattern.slice(i)) : null;
    if (quant) {
      const q = quant[0];
      const max =
        q === "?"
          ? 1
          : q === "*" || q === "+"
            ? Infinity
            : quant[2] === undefined
              ? Number(quant[1])
              : quant[3]
                ? Number(quant[3])
                : Infinity;
      if (lastGroup && max > 1 && (lastGroup.hasQuantifier || lastGroup.hasAlternation)) {
        throw refused(
          `Expected no repeated group that itself repeats or alternates (like \`(a+)+\` or \`(a|b)*\`), got \`${q}\` at index ${i}`,
        );
      }
      if (max > 32 && ++unbounded > MAX_UNBOUNDED_QUANTIFIERS) {
        throw refused(`Expected at most ${MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers, got more at index ${i}`);
      }
      if (max > 1) top().hasQuantifier = true;
      i += q.length + (pattern[i + q.length] === "?" ? 1 : 0);
      [lastGroup, canQuantify] = [undefined, false];
      continue;
    }
    i++;
    [lastGroup, canQuantify] = [undefined, c !== "^" && c !== "$"];
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, flags);
  } catch (err) {
    throw new LedgerError(
      "selector_invalid",
      `Expected a valid regular expression, got ${describeValue(pattern)}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  return { regex, windowChars: WINDOW_BY_UNBOUNDED[unbounded] ?? 32, unboundedQuantifiers: unbounded };
}

/** Length of a group opener: `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`. */
function groupOpenerLength(pattern: string, i: number): number {
  if (pattern[i + 1] !== "?") return 1;
  if (pattern[i + 2] !== "<") return 3;
  if (pattern[i + 3] === "=" || pattern[i + 3] === "!") return 4;
  const close = pattern.indexOf(">", i);
  return close < 0 ? pattern.length - i : close + 1 - i;
}

function refused(message: string): LedgerError {
  return new LedgerError("pattern_refused", `${message}; rewrite the pattern more simply (it is matched line by line)`);
}

/** Most unbounded quantifiers in an operator's pattern: it runs over every output shown, not one line at a time. */
const MAX_REDACT_UNBOUNDED_QUANTIFIERS = 2;

/**
 * Compiles an operator's redaction pattern through the vetted compiler ({@link compileSafeRegex}): no
 * backreferences, no repeated group that repeats or alternates, at most 200 chars and
 * {@link MAX_REDACT_UNBOUNDED_QUANTIFIERS} unbounded quantifiers. Throws `pattern_refused` or `selector_invalid`.
 */
export function compileRedactPattern(source: string): RegExp {
  const safe = compileSafeRegex(source, "g");
  if (safe.unboundedQuantifiers > MAX_REDACT_UNBOUNDED_QUANTIFIERS)
    throw new LedgerError(
      "pattern_refused",
      `Expected at most ${MAX_REDACT_UNBOUNDED_QUANTIFIERS} unbounded quantifiers in a redaction pattern, got ${safe.unboundedQuantifiers} in ${describeValue(source)}`,
    );
  return safe.regex;
}
