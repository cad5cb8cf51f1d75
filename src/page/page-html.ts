/**
 * The Ledger page's shell. Tool output is untrusted text: every value goes through {@link esc}, the page carries no
 * script at all, and its Content-Security-Policy allows nothing but its own style block (by hash) and inline SVG.
 */
import { createHash } from "node:crypto";

/** The page's one style block; the policy names it by hash, so no other style (or script) can run. */
export const PAGE_STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:1.2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.off{background:#f3f7ff}code{font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;padding:.8em;border-radius:4px;max-height:40em;overflow:auto}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}.muted{color:#666}.figures{font-weight:600}
td.c-kept{color:#276}td.c-broken{color:#b00;font-weight:700}td.c-request-body{color:#777;font-style:italic}
svg text{font:11px system-ui,sans-serif;fill:#333}`;

/** The Content-Security-Policy of every page: no script, no fetch, no frame, no form; only the style block above. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}'`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

/** HTML-escapes text (element content and quoted attribute values). */
export function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

/** A whole page: title and body (the body's values already escaped). */
export function pageHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${esc(title)}</title>
<style>${PAGE_STYLE}</style></head><body>
${body}
</body></html>
`;
}

/** A link within the page's route, its query escaped. */
export function link(base: string, page: string, query: Record<string, string>, text: string): string {
  const q = new URLSearchParams(query).toString();
  return `<a href="${esc(`${base}/${page}${q ? `?${q}` : ""}`)}">${esc(text)}</a>`;
}
