/** One turn of one engine in the demo. */
export interface DemoRow {
  engine: string;
  turn: number;
  /** Largest prompt (exact tokens of the messages) the host sent to the model this turn. */
  promptTokens: number;
  requests: number;
  rawTokens: number | null;
  debtTokens: number | null;
  artifacts: number;
  resets: number;
  ms: number;
}

/** Inputs of {@link renderDemoReport}. */
export interface DemoReportInput {
  hostVersion: string;
  contextWindow: number;
  turns: number;
  outputChars: number;
  ledger: DemoRow[];
  legacy: DemoRow[];
  seconds: number;
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

function chart(series: { name: string; color: string; rows: DemoRow[] }[], contextWindow: number): string {
  const w = 760;
  const h = 320;
  const pad = { l: 64, r: 16, t: 16, b: 40 };
  const maxTurn = Math.max(1, ...series.flatMap((s) => s.rows.map((r) => r.turn)));
  const maxY = Math.max(contextWindow, ...series.flatMap((s) => s.rows.map((r) => r.promptTokens))) * 1.05;
  const x = (t: number) => pad.l + ((t - 1) / Math.max(1, maxTurn - 1)) * (w - pad.l - pad.r);
  const y = (v: number) => h - pad.b - (v / maxY) * (h - pad.t - pad.b);
  const ticks = Array.from({ length: 5 }, (_, i) => Math.round((maxY / 4) * i));
  const grid = ticks
    .map((v) => `<line x1="${pad.l}" x2="${w - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${pad.l - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${v.toLocaleString("en-US")}</text>`)
    .join("");
  const windowLine = `<line x1="${pad.l}" x2="${w - pad.r}" y1="${y(contextWindow)}" y2="${y(contextWindow)}" stroke="#c00" stroke-dasharray="6 4"/><text x="${w - pad.r}" y="${y(contextWindow) - 4}" text-anchor="end" font-size="11" fill="#c00">context window ${contextWindow.toLocaleString("en-US")}</text>`;
  const lines = series
    .map((s) => {
      const pts = s.rows.map((r) => `${x(r.turn).toFixed(1)},${y(r.promptTokens).toFixed(1)}`).join(" ");
      const resets = s.rows.filter((r) => r.resets > 0).map((r) => `<circle cx="${x(r.turn)}" cy="${y(r.promptTokens)}" r="6" fill="none" stroke="#c00" stroke-width="2"><title>reset at turn ${r.turn}</title></circle>`).join("");
      return `<polyline fill="none" stroke="${s.color}" stroke-width="2.5" points="${pts}"/>${resets}`;
    })
    .join("");
  const xTicks = Array.from({ length: maxTurn }, (_, i) => i + 1)
    .filter((t) => maxTurn <= 20 || t % 5 === 0 || t === 1)
    .map((t) => `<text x="${x(t)}" y="${h - pad.b + 16}" text-anchor="middle" font-size="11">${t}</text>`)
    .join("");
  const legend = series.map((s, i) => `<rect x="${pad.l + 10 + i * 170}" y="${pad.t}" width="14" height="4" fill="${s.color}"/><text x="${pad.l + 30 + i * 170}" y="${pad.t + 6}" font-size="12">${esc(s.name)}</text>`).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" font-family="sans-serif">${grid}${windowLine}${lines}${xTicks}<text x="${(w + pad.l) / 2}" y="${h - 6}" text-anchor="middle" font-size="12">turn</text>${legend}</svg>`;
}

/** The self-contained HTML report: summary, chart of prompt tokens per turn, per-turn table. */
export function renderDemoReport(input: DemoReportInput): string {
  const sum = (rows: DemoRow[], f: (r: DemoRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const rows = [...input.ledger, ...input.legacy].sort((a, b) => a.turn - b.turn || a.engine.localeCompare(b.engine));
  const tr = rows
    .map((r) => `<tr><td>${r.turn}</td><td>${esc(r.engine)}</td><td>${r.promptTokens}</td><td>${r.requests}</td><td>${r.rawTokens ?? "–"}</td><td>${r.debtTokens ?? "–"}</td><td>${r.artifacts}</td><td>${r.resets}</td><td>${r.ms}</td></tr>`)
    .join("\n");
  return `<!doctype html><html><head><meta charset="utf-8"><title>context-ledger demo</title>
<style>body{font-family:sans-serif;max-width:900px;margin:2em auto;color:#222}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}</style></head><body>
<h1>context-ledger vs legacy</h1>
<p>OpenClaw ${esc(input.hostVersion)}, context window ${input.contextWindow.toLocaleString("en-US")} tokens, ${input.turns} turns per engine, each an <code>exec</code> printing ${input.outputChars.toLocaleString("en-US")} chars. Wall time ${input.seconds} s.</p>
<ul>
<li>Prompt tokens sent (sum of each turn's largest request): context-ledger <b>${sum(input.ledger, (r) => r.promptTokens).toLocaleString("en-US")}</b>, legacy <b>${sum(input.legacy, (r) => r.promptTokens).toLocaleString("en-US")}</b>.</li>
<li>Session resets: context-ledger <b>${sum(input.ledger, (r) => r.resets)}</b>, legacy <b>${sum(input.legacy, (r) => r.resets)}</b>.</li>
<li>Outputs captured into the artifact store by context-ledger: <b>${input.ledger.at(-1)?.artifacts ?? 0}</b> (each fetchable by handle with <code>ledger_fetch</code>).</li>
</ul>
<h2>Prompt tokens per turn</h2>
${chart([{ name: "context-ledger", color: "#1769aa", rows: input.ledger }, { name: "legacy", color: "#e08a00", rows: input.legacy }], input.contextWindow)}
<h2>Per turn</h2>
<table><tr><th>turn</th><th>engine</th><th>prompt tokens</th><th>requests</th><th>raw transcript (tokens)</th><th>debt</th><th>artifacts</th><th>resets</th><th>ms</th></tr>
${tr}
</table></body></html>
`;
}
