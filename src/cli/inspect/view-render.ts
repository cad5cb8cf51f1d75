import { isOffloadedMessage, type ViewRecord } from "../../state/view-record.js";
import { inTurnAssembles } from "./status-debt-trend.js";
import { formatBytes, formatCount, formatTable, plural } from "../core/format.js";
import { figuresLine, type SessionSummaryFigures } from "./session-figures.js";

/**
 * The user's turn a recorded view served (records written before user turns were kept: the host's commit count + 1,
 * which is the same on 2026.8+ and counts tool-loop steps on 2026.4-2026.7).
 */
export function userTurnOfView(v: Pick<ViewRecord, "turn" | "debt">): number {
  return v.debt.userTurn ?? v.turn;
}

/** One line on whether the provider's prompt cache stays warm. */
export function cacheLine(v: ViewRecord): string {
  if (!v.plan.replanned)
    return `cache-stable: the window still starts at #${v.plan.start}, so the prompt only grew at its end (the provider's prompt cache stays warm)`;
  if (v.plan.start === 0)
    return `cache-stable: the whole history fits, nothing was dropped from the front (planned anew: ${v.plan.reason})`;
  return `re-planned (${v.plan.reason}): the window moved to #${v.plan.start}, so the provider's prompt cache starts over from there`;
}

/** The figures at the top of a view, as lines. */
export function viewHeadline(v: ViewRecord): string[] {
  const pct = v.budget.tokens > 0 ? ` (${((v.estimatedTokens / v.budget.tokens) * 100).toFixed(0)}% of budget)` : "";
  return [
    `Budget ${formatCount(v.budget.tokens)} tokens (${formatCount(v.budget.messageBudget)} for messages) · prompt ${formatCount(v.estimatedTokens)} tokens${pct}${v.plan.overBudget ? " · OVER BUDGET" : ""}`,
    v.plan.total === 0
      ? "No earlier history was passed: the host sends the current turn itself (2026.8+ hands engines the history before the current turn)"
      : `Kept ${formatCount(v.plan.kept)} of ${plural(v.plan.total, "message")} (${leftOut(v)}) · ${plural(v.offloaded.length, "output")} offloaded in this prompt · summary ${v.summary ? `${formatCount(v.summary.tokens)} tokens` : "none"}`,
    ...inTurnLine(v),
    `${cacheLine(v)}`,
    `Debt read at this assembly ${formatCount(v.debt.debtTokens)} tokens, before the turn's paydown (raw history ${formatCount(v.debt.rawHistoryTokens)} vs budget ${formatCount(v.debt.promptBudget)}); debt never enlarges the prompt`,
  ];
}

/** What the view left out of the history it was passed, counted from the record's own figures. */
function leftOut(v: ViewRecord): string {
  const excluded = v.plan.excluded ?? 0;
  const older = Math.max(0, v.plan.total - v.plan.kept - excluded);
  const pairing = excluded ? `, ${formatCount(excluded)} with broken tool pairing dropped` : "";
  return older === 0 && !pairing ? "nothing left out" : `${formatCount(older)} older left out${pairing}`;
}

/** The host's other assemblies of the turn, labelled as such (none when the turn had one). */
function inTurnLine(v: ViewRecord): string[] {
  const inTurn = inTurnAssembles(v.debt);
  return inTurn
    ? [
        `The turn's main prompt; the host's ${plural(inTurn.count, "other assemble")} for the turn (budgets down to ${formatCount(inTurn.smallestBudget)}) are not shown`,
      ]
    : [];
}

/** `context-ledger view` as text. */
export function renderViewText(
  v: ViewRecord,
  turns: readonly number[],
  prog = "context-ledger",
  figures: SessionSummaryFigures | null = null,
): string {
  let out = `View of session ${v.sessionKey} · agent ${v.agentId} · turn ${userTurnOfView(v)} · assembled ${v.at}\n`;
  if (figures) out += `  Session so far: ${figuresLine(figures)}\n`;
  out += viewHeadline(v)
    .map((l) => `  ${l}\n`)
    .join("");
  out += `\nKept messages${v.messages.length < v.plan.kept ? ` (newest ${v.messages.length} recorded)` : ""}:\n`;
  out += indent(
    formatTable(
      ["#", "ROLE", "TOKENS", "CHARS", "TOOL", "PREVIEW"],
      v.messages.map((m) => [
        String(m.index),
        m.role,
        formatCount(m.tokens),
        formatCount(m.chars),
        m.toolName ?? "",
        // A handle is shown whole (never cut with the preview), so it can be pasted into fetch.
        isOffloadedMessage(m) ? `offloaded ${(m.handles ?? []).join(", ")}` : m.preview.slice(0, 80),
      ]),
    ),
  );
  if (v.offloaded.length > 0) {
    out += "\nOffloaded (originals in the store, fetched by handle):\n";
    out += indent(
      formatTable(
        ["HANDLE", "SIZE", "LINES", "TOOL"],
        v.offloaded.map((o) => [
          o.handle,
          o.bytes === null ? "-" : formatBytes(o.bytes),
          formatCount(o.lines),
          o.toolName ?? "-",
        ]),
      ),
    );
  }
  if (v.summary)
    out += `\nSummary block (${formatCount(v.summary.tokens)} tokens, system-prompt addition):\n${indent(`${v.summary.text}\n`)}`;
  out += `\nRecorded turns: ${turns.join(", ")} (\`${prog} view --session ${v.sessionKey} --turn N\`); a slice of an output: \`${prog} artifact fetch HANDLE --lines A-B\`\n`;
  return out;
}

/** `context-ledger view --html`: a self-contained page (no scripts, no external assets). */
export function renderViewHtml(
  v: ViewRecord,
  turns: readonly number[],
  figures: SessionSummaryFigures | null = null,
): string {
  const rows = v.messages
    .map(
      (m) =>
        `<tr class="${isOffloadedMessage(m) ? "off" : ""}"><td>${m.index}</td><td>${esc(m.role)}</td><td class="n">${formatCount(m.tokens)}</td><td class="n">${formatCount(m.chars)}</td><td>${esc(m.toolName ?? "")}</td><td>${esc(m.preview)}${m.handles ? `<div class="h">${m.handles.map(esc).join("<br>")}</div>` : ""}</td></tr>`,
    )
    .join("\n");
  const off = v.offloaded
    .map(
      (o) =>
        `<tr><td><code>${esc(o.handle)}</code></td><td class="n">${o.bytes === null ? "-" : esc(formatBytes(o.bytes))}</td><td class="n">${formatCount(o.lines)}</td><td>${esc(o.toolName ?? "-")}</td></tr>`,
    )
    .join("\n");
  const used = v.budget.tokens > 0 ? Math.min(100, (v.estimatedTokens / v.budget.tokens) * 100) : 0;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>context-ledger view · ${esc(v.sessionKey)} · turn ${userTurnOfView(v)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.off{background:#f3f7ff}.h{font:12px monospace;color:#456}
.bar{background:#eee;height:14px;border-radius:3px;overflow:hidden}.bar div{background:#3a7;height:100%}
pre{white-space:pre-wrap;background:#f7f7f7;padding:.8em;border-radius:4px}
</style></head><body>
<h1>What the model saw · session <code>${esc(v.sessionKey)}</code> · agent ${esc(v.agentId)} · turn ${userTurnOfView(v)}</h1>
<p>Assembled ${esc(v.at)}. Recorded turns: ${turns.join(", ")}.</p>
${figures ? `<p class="figures">Session so far: ${esc(figuresLine(figures))}</p>` : ""}
<ul>${viewHeadline(v)
    .map((l) => `<li>${esc(l)}</li>`)
    .join("")}</ul>
<div class="bar" title="prompt tokens of budget"><div style="width:${used.toFixed(1)}%"></div></div>
<h2>Kept messages</h2>
<table><tr><th>#</th><th>Role</th><th>Tokens</th><th>Chars</th><th>Tool</th><th>Preview (redacted)</th></tr>
${rows}
</table>
<h2>Offloaded outputs</h2>
${off ? `<table><tr><th>Handle</th><th>Size</th><th>Lines</th><th>Tool</th></tr>\n${off}\n</table>` : "<p>None.</p>"}
<h2>Summary block</h2>
${v.summary ? `<p>${formatCount(v.summary.tokens)} tokens, injected as a system-prompt addition.</p><pre>${esc(v.summary.text)}</pre>` : "<p>None injected.</p>"}
</body></html>
`;
}

function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => (l ? `  ${l}` : l))
    .join("\n");
}
