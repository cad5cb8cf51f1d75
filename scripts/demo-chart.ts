/**
 * The demo report's SVG line chart: a y axis with its unit and round ticks, an
 * optional reference line (the context window) labelled outside the plot, a shaded
 * band above it, and per-point annotations (resets, compactions, clamped output).
 */

/** One annotated point. */
export interface ChartMark {
  kind: "reset" | "compaction" | "clamped";
  /** Tooltip and short label text. */
  label: string;
}

/** One line of the chart. */
export interface ChartSeries {
  name: string;
  color: string;
  points: { x: number; y: number; marks?: ChartMark[] }[];
}

/** Options of {@link lineChart}. */
export interface LineChartOptions {
  title: string;
  xLabel: string;
  /** Axis title with its unit, e.g. "prompt tokens (largest request of the turn)". */
  yLabel: string;
  series: ChartSeries[];
  /** A horizontal reference (the context window), labelled in the right margin. */
  ref?: { y: number; label: string; above?: string };
  /** The y axis covers at least this much: charts meant to be compared side by side share one scale. */
  yAtLeast?: number;
}

/** Formats an integer with thousands separators. */
export const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

/**
 * Round axis ticks from 0 covering `max`: a step of 1, 2, 2.5 or 5 × 10^k chosen so
 * there are at most `target` + 1 intervals; the last tick is ≥ max.
 */
export function niceTicks(max: number, target = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; v < max + step / 2 && ticks.length < 50; v += step) ticks.push(Number(v.toPrecision(12)));
  if ((ticks.at(-1) ?? 0) < max) ticks.push(Number(((ticks.at(-1) ?? 0) + step).toPrecision(12)));
  return ticks;
}

const MARK_STYLE: Record<ChartMark["kind"], { color: string; shape: (x: number, y: number) => string; word: string }> =
  {
    reset: {
      color: "#c62828",
      word: "session reset",
      shape: (x, y) =>
        `<path d="M${x - 6},${y - 6}L${x + 6},${y + 6}M${x - 6},${y + 6}L${x + 6},${y - 6}" stroke="#c62828" stroke-width="3"/>`,
    },
    compaction: {
      color: "#ef6c00",
      word: "compaction",
      shape: (x, y) =>
        `<path d="M${x},${y - 8}L${x + 7},${y + 5}L${x - 7},${y + 5}Z" fill="none" stroke="#ef6c00" stroke-width="2"/>`,
    },
    clamped: {
      color: "#6a1b9a",
      word: "output clamped",
      shape: (x, y) =>
        `<rect x="${x - 5}" y="${y - 5}" width="10" height="10" transform="rotate(45 ${x} ${y})" fill="none" stroke="#6a1b9a" stroke-width="2"/>`,
    },
  };

/** The largest y a chart has to show: its points, its reference line, and `yAtLeast`. */
export function chartMaxY(o: Pick<LineChartOptions, "series" | "ref" | "yAtLeast">): number {
  return Math.max(o.yAtLeast ?? 0, o.ref?.y ?? 0, ...o.series.flatMap((s) => s.points.map((p) => p.y)));
}

/** A self-contained SVG line chart (no script, no external assets). */
export function lineChart(o: LineChartOptions): string {
  const w = 860;
  const h = 380;
  const pad = { l: 78, r: 170, t: 56, b: 48 };
  const xs = o.series.flatMap((s) => s.points.map((p) => p.x));
  const minX = Math.min(1, ...xs);
  const maxX = Math.max(minX + 1, ...xs);
  const ticks = niceTicks(chartMaxY(o) * 1.04);
  const maxY = ticks.at(-1) ?? 1;
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const x = (v: number) => r1(pad.l + ((v - minX) / (maxX - minX)) * (w - pad.l - pad.r));
  const y = (v: number) => r1(h - pad.b - (v / maxY) * (h - pad.t - pad.b));
  const parts: string[] = [];
  parts.push(`<text x="${pad.l}" y="18" font-size="15" font-weight="bold">${esc(o.title)}</text>`);
  if (o.ref?.above && o.ref.y < maxY) {
    const ry = y(o.ref.y);
    parts.push(
      `<rect x="${pad.l}" y="${pad.t}" width="${w - pad.l - pad.r}" height="${ry - pad.t}" fill="#c62828" fill-opacity="0.06"/>`,
    );
    parts.push(`<text x="${w - pad.r + 8}" y="${pad.t + 12}" font-size="11" fill="#c62828">${esc(o.ref.above)}</text>`);
  }
  for (const t of ticks) {
    parts.push(`<line x1="${pad.l}" x2="${w - pad.r}" y1="${y(t)}" y2="${y(t)}" stroke="#e4e4e4"/>`);
    parts.push(`<text x="${pad.l - 6}" y="${y(t) + 4}" text-anchor="end" font-size="11">${fmt(t)}</text>`);
  }
  const xStep = Math.max(1, Math.ceil(niceTicks(maxX - minX, 10)[1] ?? 1));
  for (let t = Math.ceil(minX); t <= maxX; t += xStep) {
    parts.push(`<text x="${x(t)}" y="${h - pad.b + 16}" text-anchor="middle" font-size="11">${t}</text>`);
  }
  parts.push(
    `<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${h - pad.b}" stroke="#888"/><line x1="${pad.l}" x2="${w - pad.r}" y1="${h - pad.b}" y2="${h - pad.b}" stroke="#888"/>`,
  );
  parts.push(
    `<text x="${(pad.l + w - pad.r) / 2}" y="${h - 10}" text-anchor="middle" font-size="12">${esc(o.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(16 ${(pad.t + h - pad.b) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${esc(o.yLabel)}</text>`,
  );
  if (o.ref) {
    const ry = y(o.ref.y);
    parts.push(
      `<line x1="${pad.l}" x2="${w - pad.r}" y1="${ry}" y2="${ry}" stroke="#c62828" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    );
    parts.push(`<text x="${w - pad.r + 8}" y="${ry + 4}" font-size="11" fill="#c62828">${esc(o.ref.label)}</text>`);
  }
  o.series.forEach((s, si) => {
    const pts = s.points.map((p) => `${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(" ");
    parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2.5" points="${pts}"/>`);
    for (const p of s.points) {
      parts.push(
        `<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="3" fill="${s.color}"><title>${esc(`${s.name}, ${o.xLabel} ${p.x}: ${fmt(p.y)}`)}</title></circle>`,
      );
      const marks = p.marks ?? [];
      marks.forEach((m, mi) => {
        const px = x(p.x);
        const py = y(p.y) - 14 - mi * 18 - si * 4;
        const style = MARK_STYLE[m.kind];
        parts.push(
          `<g><title>${esc(m.label)}</title>${style.shape(px, py)}<text x="${px + 10}" y="${py + 4}" font-size="10" fill="${style.color}" stroke="#fff" stroke-width="3" paint-order="stroke">${esc(style.word)}</text></g>`,
        );
      });
    }
    const last = s.points.at(-1);
    if (last)
      parts.push(
        `<text x="${x(last.x) + 8}" y="${y(last.y) + 4 + (si ? 12 : -4)}" font-size="11" fill="${s.color}">${esc(s.name)}</text>`,
      );
  });
  let lx = pad.l;
  const legend: string[] = [];
  for (const s of o.series) {
    legend.push(
      `<rect x="${lx}" y="32" width="16" height="4" fill="${s.color}"/><text x="${lx + 21}" y="38" font-size="12">${esc(s.name)}</text>`,
    );
    lx += 30 + s.name.length * 7;
  }
  const used = new Set(o.series.flatMap((s) => s.points.flatMap((p) => (p.marks ?? []).map((m) => m.kind))));
  for (const kind of ["reset", "compaction", "clamped"] as const) {
    if (!used.has(kind)) continue;
    const st = MARK_STYLE[kind];
    legend.push(`${st.shape(lx + 6, 34)}<text x="${lx + 17}" y="38" font-size="12">${st.word}</text>`);
    lx += 30 + st.word.length * 7;
  }
  parts.push(...legend);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" font-family="sans-serif">${parts.join("")}</svg>`;
}
