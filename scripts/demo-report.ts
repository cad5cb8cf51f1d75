/**
 * What the demo prints and writes: the per-turn table (thousands separators), the
 * cost line, and the self-contained HTML report (two annotated charts and the table).
 */
import type { Prices } from "./demo-cli.js";
import { chartMaxY, fmt, lineChart, type ChartMark, type LineChartOptions } from "./demo-chart.js";
import type { CostTotals } from "./demo-cost.js";
import { turnAnswered } from "./demo-judge.js";
import { formatPromptReading, type PromptReading } from "./demo-prompt.js";

/** One turn of one engine in the demo. */
export interface DemoRow {
  engine: string;
  turn: number;
  /**
   * What the user saw in `chat.history` after the post-turn work (`judgeTurn`): `answered` (the model's
   * answer once, byte-equal), `cut off` (shown, but a request's output allowance was clamped), `stub shown`,
   * `answer altered`, `answer shown N×`, `reset notice`, `host notice`, `not answered`, `no reply`, or the
   * run's `error` / `timeout`.
   */
  status: string;
  /** Largest prompt (exact tokens of the messages) the host sent to the model this turn. */
  promptTokens: number;
  requests: number;
  /** Requests whose output allowance was below the configured maxTokens. */
  clamped: number;
  /** Bytes of the host's stored transcript of the active session after the turn. */
  rawBytes: number;
  /** Exact tokens of that transcript's messages (null when unreadable). */
  rawTokens: number | null;
  /** Raw tokens over the prompt budget (null when unknown). */
  debtTokens: number | null;
  /** Artifacts in context-ledger's store. */
  artifacts: number;
  /** Sessions the host reset this turn. */
  resets: number;
  /**
   * Compaction work this turn: the host's (overflow retries, compactions, summary requests) and the compaction entries
   * context-ledger wrote into the host's transcript (the "Compaction" lines the history shows).
   */
  compactions: number;
  /** What happened, in words (resets, retries, clamped requests ...). */
  notes: string[];
  ms: number;
}

/** One engine's part of the report. */
export interface EngineSummary {
  engine: string;
  rows: DemoRow[];
  cost: CostTotals;
  /** What the model read (absent with a real model endpoint, whose requests the demo does not see). */
  prompt?: PromptReading | null;
}

/** Inputs of {@link renderDemoReport}. */
export interface DemoReportInput {
  hostVersion: string;
  contextWindow: number;
  maxTokens: number;
  turns: number;
  outputChars: number;
  answerChars: number;
  promptBudget: number;
  prices: Prices;
  engines: EngineSummary[];
  seconds: number;
  /** How the two engines ran: "at the same time" or "one after the other". */
  schedule: string;
}

const COLORS = ["#1565c0", "#ef6c00", "#2e7d32"];
const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);
const kb = (bytes: number) => `${fmt(bytes / 1024)} KB`;
const dollars = (d: number) => `$${d.toFixed(d < 1 ? 4 : 2)}`;

/** Per engine: the prompt contract over the conversation's requests, and the summary as the model last read it. */
function promptSection(engines: readonly EngineSummary[]): string {
  const parts = engines.map((e) => {
    if (!e.prompt) return `<h3>${esc(e.engine)}</h3><p>Not judged: the requests went to a real model endpoint.</p>`;
    const listed = e.prompt.violations
      .slice(0, 12)
      .map((v) => `<li>request ${v.request}: <b>${esc(v.clause)}</b>: ${esc(v.detail)}</li>`)
      .join("");
    const more = e.prompt.violations.length > 12 ? `<li>and ${e.prompt.violations.length - 12} more</li>` : "";
    const summary = e.prompt.lastSummary
      ? `<p>The summary as the model last read it (${fmt(e.prompt.lastSummary.length)} chars):</p><pre>${esc(e.prompt.lastSummary)}</pre>`
      : "<p>The last request carried no summary block.</p>";
    return `<h3>${esc(e.engine)}</h3><p><b>${esc(formatPromptReading(e.engine, e.prompt))}</b></p>${listed || more ? `<ul>${listed}${more}</ul>` : ""}${summary}`;
  });
  return `<p>The request bodies the model received, judged by the prompt contract (docs/design.md): every earlier user message verbatim or quoted whole under its own turn number, no stub longer than what it stands for, one summary block, real dates, tool calls paired.</p>\n${parts.join("\n")}`;
}

/** The chart marks of one row: reset, compaction, clamped output. */
export function rowMarks(row: DemoRow): ChartMark[] {
  const marks: ChartMark[] = [];
  const detail = `${row.engine}, turn ${row.turn}: ${row.notes.join(", ")}`;
  if (row.resets > 0) marks.push({ kind: "reset", label: detail });
  if (row.compactions > 0) marks.push({ kind: "compaction", label: detail });
  if (row.clamped > 0) marks.push({ kind: "clamped", label: detail });
  return marks;
}

/** The per-turn table as printed to the terminal. */
export function formatTable(rows: readonly DemoRow[]): string {
  const head = [
    "turn",
    "engine",
    "status",
    "largest prompt",
    "requests",
    "clamped",
    "transcript",
    "raw tokens",
    "debt",
    "artifacts",
    "resets",
    "compactions",
    "seconds",
  ];
  const body = [...rows]
    .sort((a, b) => a.turn - b.turn || a.engine.localeCompare(b.engine))
    .map((r) => [
      String(r.turn),
      r.engine,
      shownStatus(r),
      fmt(r.promptTokens),
      String(r.requests),
      String(r.clamped),
      kb(r.rawBytes),
      r.rawTokens === null ? "-" : fmt(r.rawTokens),
      r.debtTokens === null ? "-" : fmt(r.debtTokens),
      fmt(r.artifacts),
      String(r.resets),
      String(r.compactions),
      (r.ms / 1000).toFixed(1),
    ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 1 || i === 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("-+-"), ...body.map(line)].join("\n");
}

/** One line per engine: tokens sent (cached / uncached), output, dollars at the stated prices. */
export function formatCost(engines: readonly EngineSummary[], prices: Prices): string[] {
  const lines = engines.map(
    (e) =>
      `${e.engine}: ${fmt(e.cost.promptTokens)} prompt tokens in ${fmt(e.cost.requests)} requests (${fmt(e.cost.cachedTokens)} cached, ${fmt(e.cost.uncachedTokens)} uncached) + ${fmt(e.cost.outputTokens)} output = ${dollars(e.cost.dollars)}`,
  );
  lines.push(
    `prices: US$ ${prices.input} per million uncached input tokens, ${prices.cachedInput} cached, ${prices.output} output (--price); cached = what a strict OpenAI endpoint's prefix cache serves (the requests replayed in order: shared prefix from 1,024 tokens, in 128-token steps)`,
  );
  return lines;
}

/**
 * The headline of a run: turns the model answered, resets and compactions per engine, peak prompt against the window.
 */
export function headline(input: Pick<DemoReportInput, "engines" | "contextWindow">): string[] {
  return input.engines.map((e) => {
    const answered = e.rows.filter(turnAnswered).length;
    const unanswered = e.rows.filter((r) => !turnAnswered(r)).map((r) => `${r.turn}: ${shownStatus(r)}`);
    const resets = e.rows.reduce((s, r) => s + r.resets, 0);
    const compactions = e.rows.reduce((s, r) => s + r.compactions, 0);
    const peak = Math.max(0, ...e.rows.map((r) => r.promptTokens));
    const resetTurns = e.rows.filter((r) => r.resets > 0).map((r) => r.turn);
    return `${e.engine}: ${answered} of ${e.rows.length} turns answered${unanswered.length ? ` (turn ${unanswered.join(", ")})` : ""}, ${resets} session reset${resets === 1 ? "" : "s"}${resetTurns.length ? ` (turn ${resetTurns.join(", ")})` : ""}, ${compactions} compaction${compactions === 1 ? "" : "s"}, largest prompt ${fmt(peak)} tokens (${Math.round((peak / input.contextWindow) * 100)}% of the ${fmt(input.contextWindow)}-token window), transcript ${kb(e.rows.at(-1)?.rawBytes ?? 0)} after turn ${e.rows.at(-1)?.turn ?? 0}`;
  });
}

/** A row's status as the verdict counts it: an `answered` row with a clamped request was cut off. */
function shownStatus(row: DemoRow): string {
  return row.status === "answered" && !turnAnswered(row) ? "cut off" : row.status;
}

/** One engine's run in the figures the verdict compares. */
export interface EngineVerdict {
  engine: string;
  turns: number;
  /** Turns whose answer the history showed once, whole, with no clamped request (`turnAnswered`). */
  answered: number;
  /** The other turns, grouped by what the user saw, in turn order. */
  failed: { status: string; turns: number[] }[];
  resets: number;
  resetTurns: number[];
  compactions: number;
  /** Dollars over the whole run; null when nothing was billed (a real endpoint). */
  total: number | null;
  /** Dollars over answered turns; null when no turn was answered or nothing was billed. */
  perAnswered: number | null;
  /** Share of prompt tokens the provider's prefix cache served; null when nothing was counted. */
  cachedShare: number | null;
  largestPrompt: number;
}

/** Each engine's figures: answered and failed turns, resets, total spend and spend per answered turn, cached share. */
export function engineVerdicts(engines: readonly EngineSummary[]): EngineVerdict[] {
  return engines.map((e) => {
    const answered = e.rows.filter(turnAnswered).length;
    const failed: EngineVerdict["failed"] = [];
    for (const row of [...e.rows].sort((a, b) => a.turn - b.turn)) {
      if (turnAnswered(row)) continue;
      const status = shownStatus(row);
      const group = failed.find((f) => f.status === status);
      if (group) group.turns.push(row.turn);
      else failed.push({ status, turns: [row.turn] });
    }
    const billed = e.cost.promptTokens > 0;
    return {
      engine: e.engine,
      turns: e.rows.length,
      answered,
      failed,
      resets: e.rows.reduce((s, r) => s + r.resets, 0),
      resetTurns: e.rows.filter((r) => r.resets > 0).map((r) => r.turn),
      compactions: e.rows.reduce((s, r) => s + r.compactions, 0),
      total: billed ? e.cost.dollars : null,
      perAnswered: billed && answered > 0 ? e.cost.dollars / answered : null,
      cachedShare: billed ? e.cost.cachedTokens / e.cost.promptTokens : null,
      largestPrompt: Math.max(0, ...e.rows.map((r) => r.promptTokens)),
    };
  });
}

const percent = (share: number | null) => (share === null ? "–" : `${Math.round(share * 100)}%`);
const perTurn = (d: number | null) => (d === null ? "–" : dollars(d));

/** The engines side by side, one line each, as printed to the terminal. */
export function formatVerdictTable(verdicts: readonly EngineVerdict[]): string {
  const head = [
    "engine",
    "answered",
    "resets",
    "compactions",
    "total spend",
    "per answered turn",
    "cached",
    "largest prompt",
  ];
  const body = verdicts.map((v) => [
    v.engine,
    `${v.answered} of ${v.turns}`,
    String(v.resets),
    String(v.compactions),
    perTurn(v.total),
    perTurn(v.perAnswered),
    percent(v.cachedShare),
    fmt(v.largestPrompt),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(head), ...body.map(line)].join("\n");
}

const STATUS_WORDS: Record<string, string> = { "cut off": "cut off (output allowance clamped)" };

/** `4 of 6 (turn 3, 6: reset notice)`: answered turns and what the user saw on the others. */
function answeredClause(v: EngineVerdict): string {
  const failed = v.failed.map((f) => `turn ${f.turns.join(", ")}: ${STATUS_WORDS[f.status] ?? f.status}`);
  return `${v.answered} of ${v.turns}${failed.length ? ` (${failed.join("; ")})` : ""}`;
}

/**
 * `more in all ($0.2816 against $0.2440, 1.15× legacy's)`, from the two figures alone; a missing figure
 * (no answered turn to divide by) is named, not compared.
 */
function spendClause(
  what: string,
  ours: EngineVerdict,
  base: EngineVerdict,
  pick: (v: EngineVerdict) => number | null,
) {
  const a = pick(ours);
  const b = pick(base);
  if (a === null || b === null) {
    const none = [ours, base].filter((v) => pick(v) === null).map((v) => v.engine);
    return `${what} ${perTurn(a)} against ${perTurn(b)} (${none.join(" and ")} answered no turn)`;
  }
  const word = a > b ? "more" : a < b ? "less" : "the same";
  const ratio = b > 0 ? `, ${(a / b).toFixed(2)}× ${base.engine}'s` : "";
  return `${word} ${what} (${dollars(a)} against ${dollars(b)}${ratio})`;
}

/**
 * What the run showed, in one sentence built from the counts alone: which engine answered more turns as the
 * history shows them (a turn with a clamped output allowance is a failed turn), both engines' total spend and
 * spend per answered turn, session resets and the prefix cache's share.
 */
export function verdictSentence(verdicts: readonly EngineVerdict[]): string {
  const ours = verdicts.find((v) => v.engine === "context-ledger");
  const base = verdicts.find((v) => v.engine === "legacy");
  if (!ours || !base)
    return `Verdict: ${verdicts.map((v) => `${v.engine} answered ${answeredClause(v)}, ${perTurn(v.total)} in all`).join("; ")}.`;
  const lead =
    ours.answered === base.answered
      ? `both engines answered ${ours.answered} of ${ours.turns} turns`
      : `${ours.answered > base.answered ? ours.engine : base.engine} answered more turns`;
  const parts = [`${lead}: ${ours.engine} ${answeredClause(ours)}, ${base.engine} ${answeredClause(base)}`];
  if (ours.total === null || base.total === null) parts.push("cost not measured (a real endpoint: see its bill)");
  else
    parts.push(
      `${ours.engine} spent ${spendClause("in all", ours, base, (v) => v.total)} and ${spendClause("per answered turn", ours, base, (v) => v.perAnswered)}`,
    );
  const resets = (v: EngineVerdict) => `${v.resets}${v.resetTurns.length ? ` (turn ${v.resetTurns.join(", ")})` : ""}`;
  parts.push(`session resets: ${ours.engine} ${resets(ours)}, ${base.engine} ${resets(base)}`);
  if (ours.cachedShare !== null && base.cachedShare !== null)
    parts.push(
      `the provider's prefix cache served ${percent(ours.cachedShare)} of ${ours.engine}'s prompt tokens and ${percent(base.cachedShare)} of ${base.engine}'s`,
    );
  return `Verdict: ${parts.join("; ")}.`;
}

/** The self-contained HTML report. */
export function renderDemoReport(input: DemoReportInput): string {
  const series = (value: (r: DemoRow) => number, marks: boolean) =>
    input.engines.map((e, i) => ({
      name: e.engine,
      color: COLORS[i % COLORS.length] ?? "#333",
      points: e.rows.map((r) => ({ x: r.turn, y: value(r), ...(marks ? { marks: rowMarks(r) } : {}) })),
    }));
  const promptChart: LineChartOptions = {
    title: "What the model was sent: the largest prompt of each turn",
    xLabel: "turn",
    yLabel: "prompt tokens (o200k_base, tool schemas included)",
    series: series((r) => r.promptTokens, true),
    ref: { y: input.contextWindow, label: `window ${fmt(input.contextWindow)} tokens`, above: "over the window" },
  };
  const transcriptChart: LineChartOptions = {
    title: "What the host keeps: the active session's raw transcript",
    xLabel: "turn",
    yLabel: "raw transcript (tokens of its messages)",
    series: series((r) => r.rawTokens ?? 0, true),
    ref: { y: input.contextWindow, label: `window ${fmt(input.contextWindow)} tokens` },
  };
  // Both charts on one token scale: the prompt is compared with the transcript it was built from.
  const yAtLeast = Math.max(chartMaxY(promptChart), chartMaxY(transcriptChart));
  const prompts = lineChart({ ...promptChart, yAtLeast });
  const transcript = lineChart({ ...transcriptChart, yAtLeast });
  const verdicts = engineVerdicts(input.engines);
  const rows = input.engines.flatMap((e) => e.rows).sort((a, b) => a.turn - b.turn || a.engine.localeCompare(b.engine));
  const tr = rows
    .map(
      (r) =>
        `<tr><td>${r.turn}</td><td class="l">${esc(r.engine)}</td><td class="l">${esc(shownStatus(r))}</td><td>${fmt(r.promptTokens)}</td><td>${r.requests}</td><td>${r.clamped}</td><td>${kb(r.rawBytes)}</td><td>${r.rawTokens === null ? "–" : fmt(r.rawTokens)}</td><td>${r.debtTokens === null ? "–" : fmt(r.debtTokens)}</td><td>${fmt(r.artifacts)}</td><td>${r.resets}</td><td>${r.compactions}</td><td>${(r.ms / 1000).toFixed(1)}</td><td class="l">${esc(r.notes.join("; "))}</td></tr>`,
    )
    .join("\n");
  const li = (s: string) => `<li>${esc(s)}</li>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>context-ledger demo: OpenClaw ${esc(input.hostVersion)}</title>
<style>body{font-family:sans-serif;max-width:980px;margin:2em auto;color:#222;line-height:1.4}pre{white-space:pre-wrap;background:#f8f8f8;border:1px solid #ddd;padding:6px;font-size:12px;max-height:24em;overflow:auto}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}td.l{text-align:left}th{background:#f4f4f4}code{background:#f4f4f4;padding:0 3px}</style></head><body>
<h1>context-ledger vs legacy on OpenClaw ${esc(input.hostVersion)}</h1>
<p><b>${esc(verdictSentence(verdicts))}</b></p>
<table><tr><th class="l">engine</th><th>answered turns</th><th>session resets</th><th>compactions</th><th>total spend</th><th>spend per answered turn</th><th>prompt tokens served from the provider's cache</th><th>largest prompt (tokens)</th></tr>
${verdicts.map((v) => `<tr><td class="l">${esc(v.engine)}</td><td>${v.answered} of ${v.turns}</td><td>${v.resets}</td><td>${v.compactions}</td><td>${perTurn(v.total)}</td><td>${perTurn(v.perAnswered)}</td><td>${percent(v.cachedShare)}</td><td>${fmt(v.largestPrompt)}</td></tr>`).join("\n")}
</table>
<p>A real OpenClaw gateway, offline, with a scripted model. ${input.turns} turns per engine; each turn the model calls <code>exec</code>, which prints ${fmt(input.outputChars)} characters, then answers in ${fmt(input.answerChars)} characters. Context window ${fmt(input.contextWindow)} tokens, output allowance ${fmt(input.maxTokens)} tokens. The engines ran ${esc(input.schedule)}; wall time ${fmt(input.seconds)} s.</p>
<ul>${headline(input).map(li).join("")}</ul>
<h2>Prompt per turn</h2>
${prompts}
<p>Both charts share one token scale. Marks: <b>reset</b> = the host gave up on the session and started a new one (its reply to the user is a reset notice, not an answer); <b>compaction</b> = the host retried after an overflow, compacted, or asked the model for a summary; <b>output clamped</b> = a request whose <code>max_completion_tokens</code>/<code>max_tokens</code> was below ${fmt(input.maxTokens)}.</p>
<h2>Raw transcript per turn</h2>\n<p>The host sizes this for its overflow precheck on 2026.4.24: past the window it compacts, and when compaction cannot shrink it, resets the session. context-ledger's prompt above stays bounded while this grows; a reset shows as a drop to a new, empty session.</p>
${transcript}
<h2>What the model read</h2>
${promptSection(input.engines)}
<h2>Cost</h2>
<ul>${formatCost(input.engines, input.prices).map(li).join("")}</ul>
<h2>Per turn</h2>
<table><tr><th>turn</th><th>engine</th><th>status</th><th>largest prompt (tokens)</th><th>requests</th><th>clamped</th><th>transcript</th><th>raw tokens</th><th>debt (tokens)</th><th>artifacts</th><th>resets</th><th>compactions</th><th>seconds</th><th>what happened</th></tr>
${tr}
</table>
<p>Status: what a user reopening the chat sees for the turn (<code>chat.history</code> at full length, read after the engine's post-turn work; the next message is sent only then): <b>answered</b> = the answer the model wrote, shown once and byte for byte, and no request of the turn had its output allowance clamped; <b>cut off</b> = the answer was shown but a request's output allowance was clamped below ${fmt(input.maxTokens)} tokens (the mock ignores it; a real model's answer would stop there), a failed turn; <b>stub shown</b> = a placeholder (an engine's <code>[context-ledger artifact …]</code> stub, the host's omitted-message marker) instead of the answer; <b>answer altered</b> = a text that begins like the answer but is not it; <b>reset notice</b> = the host's "I've reset our conversation" instead of an answer; <b>host notice</b> = another notice of the host's giving up on the turn. Only <b>answered</b> turns count as answered, in the verdict and in the spend per answered turn. Seconds: from sending the message until its run ended. Prompt tokens: the request as a provider counts it, tool schemas and every message, with o200k_base (+4 per message); cost and cached share are the requests replayed in order through a strict OpenAI endpoint's rules (prefix cache from 1,024 tokens, in 128-token steps). Transcript: the host's stored transcript of the active session (JSONL file on 2026.4.24, <code>transcript_events</code> in SQLite on 2026.9.x), its active branch (what the host loads; a rewrite leaves the replaced entries behind in the store, off the branch), bytes and exact tokens of its messages. Debt: raw tokens over the prompt budget (${fmt(input.promptBudget)} tokens), the same rule for both engines. Artifacts: outputs in context-ledger's store, each fetchable by handle with <code>ledger_fetch</code>.</p>
</body></html>
`;
}
