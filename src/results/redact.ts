import { describeValue, LedgerError } from "../errors.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * Default secret patterns. Where a secret follows a label (`password=`,
 * `Bearer `) the label is kept and only the value goes.
 */
const DEFAULT_RULES: Array<{ re: RegExp; keep?: number }> = [
  { re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { re: /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}/g },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { re: /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { re: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi, keep: 1 },
  { re: /((?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|token)["']?\s*[:=]\s*["']?)[^\s"',;&]{3,}/gi, keep: 1 },
];

/** The default patterns as plain regular expressions (for doctor and docs). */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = DEFAULT_RULES.map((r) => r.re);

const compiled = new Map<string, RegExp | null>();

/**
 * Replaces secrets in text shown to the model or written to logs (previews,
 * summaries, log lines): API keys (`sk-...`, `AKIA...`, `ghp_...`, `xox?-...`,
 * `AIza...`), bearer tokens, private key blocks, and `password=...`-style
 * assignments, plus `extraPatterns` (regular expression sources from config).
 * Stored originals are never redacted. Never throws (it runs inside the
 * logger): an invalid extra pattern is skipped; config parsing should reject
 * it first with {@link validateRedactPatterns}.
 */
export function redactSecrets(text: string, extraPatterns: readonly string[] = []): string {
  let out = text;
  for (const rule of DEFAULT_RULES) {
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (...m: unknown[]) => (rule.keep ? `${String(m[rule.keep])}${REDACTED}` : REDACTED));
  }
  for (const source of extraPatterns) {
    let re = compiled.get(source);
    if (re === undefined) {
      try {
        re = new RegExp(source, "g");
      } catch {
        re = null;
      }
      if (compiled.size > 256) compiled.clear();
      compiled.set(source, re);
    }
    if (re) {
      re.lastIndex = 0;
      out = out.replace(re, REDACTED);
    }
  }
  return out;
}

/** Throws `config_invalid` naming the first extra pattern that is not a valid regular expression. */
export function validateRedactPatterns(patterns: readonly string[]): void {
  for (const [i, source] of patterns.entries()) {
    try {
      new RegExp(source, "g");
    } catch (err) {
      throw new LedgerError("config_invalid", `Expected \`redaction.patterns[${i}]\` to be a valid regular expression, got ${describeValue(source)}`, { cause: err });
    }
  }
}
