/** Default secret shapes: API keys, tokens, private keys, credentials in assignments. */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b[Bb]earer\s+[A-Za-z0-9._~+/=-]{16,}/g,
  /\b((?:password|passwd|secret|api[_-]?key|token|access[_-]?key)\s*[=:]\s*)["']?[^\s"',;]{6,}/gi,
];

/** What replaces a secret. */
export const REDACTED = "[REDACTED]";

const compiled = new Map<string, RegExp>();

/**
 * Redacts secrets in text shown to models, logs and operators (previews,
 * summaries, log lines). Stored originals are never redacted.
 */
export function redactSecrets(text: string, extraPatterns: readonly string[] = []): string {
  let out = text;
  for (const re of DEFAULT_SECRET_PATTERNS) {
    out = out.replace(re, (match: string, prefix?: unknown) => (typeof prefix === "string" && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED));
  }
  for (const source of extraPatterns) {
    let re = compiled.get(source);
    if (!re) {
      try {
        re = new RegExp(source, "g");
      } catch {
        continue;
      }
      compiled.set(source, re);
    }
    out = out.replace(re, REDACTED);
  }
  return out;
}
