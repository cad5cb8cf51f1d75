/**
 * The chart of a session, drawn on the server as inline SVG (no script): per user turn, the prompt sent against the
 * budget and the model's window, and the debt before and after the turn's paydown.
 */
import type { UserTurnReading } from "../cli/inspect/session-figures.js";
import { formatCount } from "../cli/core/format.js";
import { esc } from "./page-html.js";

const WIDTH = 760;
const HEIGHT = 240;
const LEFT = 64;
const BOTTOM = 28;
const TOP = 12;

/** The chart as an SVG element (empty text when there is no reading). */
export function turnChart(turns: readonly UserTurnReading[], windowTokens: number | null): string {
  if (turns.length === 0) return "";
  const top = Math.max(
    1,
    windowTokens ?? 0,
    ...turns.map((t) => Math.max(t.assembledTokens, t.promptBudget, t.debtBefore, t.debtAfter ?? 0)),
  );
  const plotW = WIDTH - LEFT - 8;
  const plotH = HEIGHT - BOTTOM - TOP;
  const y = (v: number): number => TOP + plotH - (v / top) * plotH;
  const slot = plotW / turns.length;
  const bar = Math.max(2, Math.min(28, slot / 3));
  const parts: string[] = [];
  parts.push(`<line x1="${LEFT}" y1="${y(0)}" x2="${WIDTH - 8}" y2="${y(0)}" stroke="#999"/>`);
  parts.push(`<text x="4" y="${y(top) + 10}">${esc(formatCount(top))}</text><text x="4" y="${y(0)}">0</text>`);
  if (windowTokens)
    parts.push(
      `<line class="window" x1="${LEFT}" y1="${y(windowTokens)}" x2="${WIDTH - 8}" y2="${y(windowTokens)}" stroke="#c33" stroke-dasharray="6 3"/><text x="${LEFT + 4}" y="${y(windowTokens) - 3}">window ${esc(formatCount(windowTokens))}</text>`,
    );
  turns.forEach((t, i) => {
    const x = LEFT + i * slot + slot / 2;
    const title = `turn ${t.userTurn}: prompt ${formatCount(t.assembledTokens)} of budget ${formatCount(t.promptBudget)}; debt ${formatCount(t.debtBefore)} before paydown, ${t.debtAfter === null ? "not read" : formatCount(t.debtAfter)} after`;
    parts.push(
      `<g class="turn"><title>${esc(title)}</title>` +
        `<rect class="prompt" x="${(x - bar).toFixed(1)}" y="${y(t.assembledTokens).toFixed(1)}" width="${bar.toFixed(1)}" height="${(y(0) - y(t.assembledTokens)).toFixed(1)}" fill="#3a7"/>` +
        `<rect class="debt-before" x="${x.toFixed(1)}" y="${y(t.debtBefore).toFixed(1)}" width="${(bar / 2).toFixed(1)}" height="${(y(0) - y(t.debtBefore)).toFixed(1)}" fill="#e9a23b"/>` +
        `<rect class="debt-after" x="${(x + bar / 2).toFixed(1)}" y="${y(t.debtAfter ?? 0).toFixed(1)}" width="${(bar / 2).toFixed(1)}" height="${(y(0) - y(t.debtAfter ?? 0)).toFixed(1)}" fill="#7a4"/>` +
        `<line class="budget" x1="${(x - slot / 2 + 2).toFixed(1)}" y1="${y(t.promptBudget).toFixed(1)}" x2="${(x + slot / 2 - 2).toFixed(1)}" y2="${y(t.promptBudget).toFixed(1)}" stroke="#36c" stroke-width="2"/>` +
        `<text x="${(x - 4).toFixed(1)}" y="${HEIGHT - 10}">${t.userTurn}</text></g>`,
    );
  });
  const legend =
    `<text x="${LEFT}" y="${HEIGHT}">` +
    "turn · green: prompt sent · blue: budget · orange: debt before paydown · olive: after · red dashes: window</text>";
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="prompt per turn against budget and window" width="${WIDTH}" height="${HEIGHT + 6}" viewBox="0 0 ${WIDTH} ${HEIGHT + 6}">${parts.join("")}${legend}</svg>`;
}
