import { compileRedactPattern } from "../safe-regex.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

// Names that label a secret: `password`, `db_password`, `aws_secret_access_key`, `clientSecret`, `GITHUB_TOKEN`...
// Not preceded by a word boundary (camelCase), but a suffix must start with `_`/`-` (`tokens`, `secretary` are not
// labels).
const LABEL = String.raw`(?:pass(?:word|wd|phrase)|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)(?:[_-][A-Za-z0-9]{1,16}){0,3}`;
// Between label and value: an optional (JSON-escaped) closing quote of the key, then `:` or `=`.
const ASSIGN = String.raw`(?:\\?["'])?\s{0,8}[:=]\s{0,8}`;

/**
 * Default secret patterns. Where a secret follows a label (`password=`,
 * `Bearer `) the label is kept and only the value goes. Every pattern is
 * linear on any input: runs are either unbounded with nothing after them or
 * bounded (a test sweeps them with 1 MB adversarial inputs).
 */
const DEFAULT_RULES: Array<{ re: RegExp; keep?: number }> = [
  { re: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|$)/g },
  { re: /\bsk-(?:proj-|ant-(?:api\d\d-)?|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g },
  { re: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/g },
  { re: /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { re: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  { re: /\bhooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g },
  { re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  // Starts only where a run of token chars starts: `eyJ-eyJ-...` would otherwise rescan 2 KB from every `eyJ`.
  { re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,2048}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,2048}/g },
  { re: /\b(Bearer\s{1,8})[A-Za-z0-9._~+/=-]{12,}/gi, keep: 1 },
  // Quoted values (also JSON-escaped `\"...\"`) go whole, spaces included; the closing quote must match the opening
  // one.
  { re: new RegExp(String.raw`(${LABEL}${ASSIGN}(\\?["']))[^"'\n\\]{1,256}(?=\2)`, "gi"), keep: 1 },
  { re: new RegExp(String.raw`(${LABEL}${ASSIGN}(?:\\?["'])?)[^\s"'\\,;&]{3,}`, "gi"), keep: 1 },
];

/** The operator's extra patterns, compiled once by their owner (the runtime keeps them per agent's settings). */
export type RedactPatterns = readonly RegExp[];

/**
 * Compiles config pattern sources with the vetted compiler. The config schema refuses an
 * invalid or unsafe pattern first; one that slips through is skipped here, not fatal.
 */
export function compileRedactPatterns(sources: readonly string[]): RedactPatterns {
  const out: RegExp[] = [];
  for (const source of sources) {
    try {
      out.push(compileRedactPattern(source));
    } catch {
      // Refused by the schema already; skipped, never thrown (redaction runs inside the logger).
    }
  }
  return out;
}

/**
 * Replaces secrets in text shown to the model, an operator or a log
 * (previews, stubs, peek, summaries, checkpoints, log lines): API keys
 * (OpenAI/Anthropic `sk-...`, Stripe `sk_live_...`, AWS `AKIA...`, GitHub
 * `ghp_...`/`github_pat_...`, Slack `xox?-...` and webhooks, Google `AIza...`),
 * JWTs, bearer tokens, private key blocks (also the tail of a block whose
 * BEGIN is not in the text), and `password=...`-style assignments (also
 * `aws_secret_access_key`, quoted and JSON-escaped values), plus
 * `extraPatterns` (compiled by {@link compileRedactPatterns}). Redact before
 * cutting: a cut can split a secret so that no rule matches the rest.
 * Stored originals are never redacted. Never throws (it runs inside the
 * logger): an invalid extra pattern is skipped; config parsing should reject
 * it first with {@link validateRedactPatterns}.
 */
export function redactSecrets(text: string, extraPatterns: RedactPatterns = []): string {
  let out = text;
  for (const rule of DEFAULT_RULES) {
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (...m: unknown[]) => (rule.keep ? `${String(m[rule.keep])}${REDACTED}` : REDACTED));
  }
  out = redactOrphanKeyEnds(out);
  for (const re of extraPatterns) {
    re.lastIndex = 0;
    out = out.replace(re, REDACTED);
  }
  return out;
}

const KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
const KEY_BODY_LINE = /^(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: .*|\s*|\[REDACTED\])$/;

/**
 * A private key END line whose BEGIN is not in the text (a preview or window
 * cut it off): the key lines above it, back to the first line that is not
 * key material, go too. Linear: each line is looked at once per END.
 */
function redactOrphanKeyEnds(text: string): string {
  if (!text.includes("PRIVATE KEY-----")) return text;
  KEY_END.lastIndex = 0;
  const parts: string[] = [];
  let pos = 0;
  for (let m = KEY_END.exec(text); m; m = KEY_END.exec(text)) {
    let start = text.lastIndexOf("\n", m.index - 1) + 1;
    while (start > pos) {
      const prevStart = text.lastIndexOf("\n", start - 2) + 1;
      const line = text.slice(Math.max(prevStart, pos), start - 1);
      if (!KEY_BODY_LINE.test(line)) break;
      start = Math.max(prevStart, pos);
      if (prevStart <= pos) break;
    }
    parts.push(text.slice(pos, start), REDACTED);
    pos = m.index + m[0].length;
  }
  parts.push(text.slice(pos));
  return parts.join("");
}
