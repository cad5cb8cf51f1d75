/**
 * Every regex from config or input goes through one vetted compiler: an operator's
 * catastrophic redaction pattern is refused when the config is parsed (it would run over
 * every output), and the `\u{` escape no longer hides what follows it from the check.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/parse-config.js";
import { isLedgerError } from "../../src/errors.js";
import { compileRedactPatterns, redactSecrets } from "../../src/results/redact.js";
import { compileSafeRegex } from "../../src/safe-regex.js";

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (err) {
    return isLedgerError(err) ? err.code : "other";
  }
};

describe("hostile patterns", () => {
  it("a catastrophic redaction pattern is refused at config parse, with the reason", () => {
    expect(codeOf(() => parseConfig({ redaction: { patterns: ["(a+)+$"] } }))).toBe("config_invalid");
    expect(() => parseConfig({ redaction: { patterns: ["(x|xx)*y"] } })).toThrow(/redaction/);
    expect(() => parseConfig({ redaction: { patterns: ["a*b*c*d"] } })).toThrow(/unbounded quantifiers/);
    expect(parseConfig({ redaction: { patterns: ["acct-[0-9]{6,12}"] } }).redaction.patterns).toHaveLength(1);
  });

  it("`\\u{` does not hide the rest of a pattern from the check", () => {
    expect(codeOf(() => compileSafeRegex("\\u{41}(a+)+}"))).toBe("pattern_refused");
    expect(codeOf(() => compileSafeRegex("\\u{(a+)+}"))).toBe("pattern_refused");
    expect(compileSafeRegex("\\u{1F600}x+", "u").unboundedQuantifiers).toBe(1);
  });

  it("a pattern that slips past config (set in code) is skipped, never run", () => {
    const text = `${"a".repeat(40)}!`;
    expect(redactSecrets(text, compileRedactPatterns(["(a+)+$"]))).toBe(text);
  });
});
