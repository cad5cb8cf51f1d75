// Hand-written SVG charts (no dependencies, no browser): line charts with
// axes, ticks, a legend and optional horizontal reference lines.

const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function niceStep(range, ticks) {
  const raw = range / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}

function fmtTick(v) {
  if (Math.abs(v) >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (Math.abs(v) >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(2)}`;
}

/**
 * A line chart.
 * @param {{ title: string, xLabel: string, yLabel: string, series: { name: string, points: [number, number][], dash?:
 * boolean }[],
 *   refLines?: { y: number, label: string }[], logX?: boolean, logY?: boolean, yMax?: number, width?: number, height?:
 * number }} spec
 */
export function lineChart(spec) {
  const W = spec.width ?? 760;
  const H = spec.height ?? 400;
  const m = { l: 70, r: 20, t: 40, b: 80 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const tx = (v) => (spec.logX ? Math.log10(v) : v);
  const ty = (v) => (spec.logY ? Math.log10(Math.max(v, 1e-9)) : v);
  const all = spec.series.flatMap((s) => s.points);
  const xs = all.map((p) => tx(p[0]));
  const ysRaw = all.map((p) => p[1]).concat((spec.refLines ?? []).map((r) => r.y));
  let x0 = Math.min(...xs);
  let x1 = Math.max(...xs);
  if (x1 === x0) x1 = x0 + 1;
  let y0 = spec.logY ? Math.floor(Math.log10(Math.min(...ysRaw.filter((v) => v > 0)))) : 0;
  let y1 = spec.yMax !== undefined ? ty(spec.yMax) : ty(Math.max(...ysRaw)) * (spec.logY ? 1 : 1.05);
  if (spec.logY) y1 = Math.ceil(y1);
  if (y1 === y0) y1 = y0 + 1;
  const px = (v) => m.l + ((tx(v) - x0) / (x1 - x0)) * pw;
  const py = (v) => m.t + ph - ((Math.min(ty(v), y1) - y0) / (y1 - y0)) * ph;
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${esc(spec.title)}</text>`);
  // Y ticks
  const yTicks = [];
  if (spec.logY) for (let e = y0; e <= y1; e++) yTicks.push(10 ** e);
  else {
    const step = niceStep(y1 - y0, 6);
    for (let v = 0; v <= y1 + 1e-9; v += step) yTicks.push(v);
  }
  for (const v of yTicks) {
    const y = py(v);
    out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${m.l - 6}" y="${y + 4}" text-anchor="end" fill="#374151">${fmtTick(v)}</text>`);
  }
  // X ticks
  const xTicks = [];
  if (spec.logX) for (let e = Math.floor(x0); e <= Math.ceil(x1); e++) xTicks.push(10 ** e);
  else {
    const step = niceStep(x1 - x0, 8);
    for (let v = Math.ceil(x0 / step) * step; v <= x1 + 1e-9; v += step) xTicks.push(v);
  }
  for (const v of xTicks) {
    if (tx(v) < x0 - 1e-9 || tx(v) > x1 + 1e-9) continue;
    const x = px(v);
    out.push(`<line x1="${x}" x2="${x}" y1="${m.t + ph}" y2="${m.t + ph + 5}" stroke="#374151"/>`);
    out.push(`<text x="${x}" y="${m.t + ph + 18}" text-anchor="middle" fill="#374151">${fmtTick(v)}</text>`);
  }
  out.push(`<line x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${m.t + ph}" stroke="#374151"/>`);
  out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${m.t + ph}" y2="${m.t + ph}" stroke="#374151"/>`);
  out.push(`<text x="${m.l + pw / 2}" y="${m.t + ph + 36}" text-anchor="middle">${esc(spec.xLabel)}</text>`);
  out.push(
    `<text transform="translate(16 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text>`,
  );
  for (const r of spec.refLines ?? []) {
    const y = py(r.y);
    out.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${y}" y2="${y}" stroke="#6b7280" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${m.l + pw - 4}" y="${y - 5}" text-anchor="end" fill="#6b7280">${esc(r.label)}</text>`);
  }
  out.push(
    `<g clip-path="url(#plot)"><clipPath id="plot"><rect x="${m.l}" y="${m.t - 2}" width="${pw}" height="${ph + 4}"/></clipPath>`,
  );
  spec.series.forEach((s, i) => {
    const pts = s.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
    out.push(
      `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"${s.dash ? ' stroke-dasharray="5 3"' : ""} points="${pts}"/>`,
    );
    if (s.points.length <= 12)
      for (const [x, y] of s.points)
        out.push(
          `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3.5" fill="${COLORS[i % COLORS.length]}"/>`,
        );
  });
  out.push(`</g>`);
  // Legend below the axis.
  let lx = m.l;
  const ly = H - 18;
  spec.series.forEach((s, i) => {
    out.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${ly - 4}" y2="${ly - 4}" stroke="${COLORS[i % COLORS.length]}" stroke-width="3"${s.dash ? ' stroke-dasharray="5 3"' : ""}/>`,
    );
    out.push(`<text x="${lx + 28}" y="${ly}">${esc(s.name)}</text>`);
    lx += 40 + s.name.length * 6.6;
  });
  out.push(`</svg>`);
  return `${out.join("\n")}\n`;
}
