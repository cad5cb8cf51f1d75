// The gateway benchmarks' part of docs/benchmarks.md: the long haul (9) and sessions at once (10), their tables,
// targets and charts (docs/bench/long-haul-*.svg).
import { writeFile } from "node:fs/promises";
import { lineChart } from "./lib/svg.mjs";
import { fmtInt } from "./lib/stats.mjs";

const MB = 1_048_576;
const mb = (bytes) => (bytes === null || bytes === undefined ? "n/a" : (Number(bytes) / MB).toFixed(2));
const runName = (r) => `${r.engine} ${r.version}`;

/** Targets of the gateway benchmarks, labelled, for the report's target table. */
export function gatewayTargets(r) {
  const rows = [];
  for (const [key, t] of Object.entries(r["long-haul"]?.targets ?? {})) {
    const [figure, ...line] = key.split("_");
    const label = {
      answered: "turns answered",
      resets: "session resets",
      recall: "planted-fact recall",
      engineTime: "engine time, last 20 turns / turns 11-30",
      rssGrowth: "gateway RSS growth, turn 50 to the end",
      liveHeapGrowth: "gateway heap after a full collection, growth from turn 50 to the end",
      pluginState: "plugin state without artifacts",
      transcriptFile: "host transcript file / its active branch",
    }[figure];
    rows.push([`Long haul ${line.join(".")}: ${label ?? figure}`, t]);
  }
  for (const [key, t] of Object.entries(r.sessions?.targets ?? {})) {
    const label = {
      answered: "turns answered",
      crossed: "turns showing another session's content",
      lostCaptures: "outputs lost",
      searchFindsOwn: "sessions whose search finds their own outputs",
      engineTimeVsAlone: "engine wall time p50 / one session alone",
      engineOwnTimeVsAlone: "engine's own work p50 (wall less awaits) / one session alone",
      promptBytesVsAlone: "prompt bytes p50 / one session alone",
    }[key];
    rows.push([`${r.sessions.sessions} sessions at once: ${label ?? key}`, t]);
  }
  return rows;
}

/** Section 9: one row per line and engine, and what the charts show. */
export function longHaulSection(h) {
  if (h.error) return [`Long haul failed: ${h.error.split("\n")[0]}`];
  const lines = [
    `${h.turns} turns of one session per host line and engine through a real gateway (window 32,000, maxTokens 4,096; outputs of real programs, 200 chars to 1 MB; a gateway restart halfway, \`/compact\` at 60%; docs/long-haul.md). Recall: facts planted early, asked late; "not in prompt" counts the answers the model could give only through \`ledger_search\` / \`ledger_fetch\`.`,
    "",
    "| line | engine | answered | resets | requests below maxTokens | recall (not in prompt) | engine ms p50, turns 11-30 → last 20 | gateway RSS MB, turn 50 → end | gateway heap after a full collection MB, turn 50 → end | transcript file / active MB | plugin state MB | store MB | wall s |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of h.runs)
    lines.push(
      `| ${r.version} | ${r.engine} | ${r.answered}/${r.turns}${r.gatewayDied ? ` (gateway died before turn ${r.gatewayDied.beforeTurn}: ${r.gatewayDied.cause.replace(/^.*FATAL ERROR: /, "")})` : ""}${r.stopped ? ` (${r.stopped})` : ""} | ${r.resets?.length ?? "n/a"} | ${r.requestsBelowMaxTokens === null ? "n/a" : fmtInt(r.requestsBelowMaxTokens)} | ${r.recall.hit}/${r.recall.asked} (${r.recall.hitWithoutFactInPrompt}) | ${r.engine === "legacy" ? "n/a" : `${r.engineMs.p50Turns11to30} → ${r.engineMs.p50Last20}`} | ${Math.round(r.rssMb.atTurn50)} → ${Math.round(r.rssMb.atEnd)} | ${liveHeapCell(r.liveHeap)} | ${mb(r.transcript.bytes)} / ${mb(r.transcript.activeBytes)} | ${mb(r.pluginStateBytes)} | ${mb(r.storeBytes)} | ${r.wallSec} |`,
    );
  lines.push(
    "",
    "![main prompt per turn](bench/long-haul-prompt.svg)",
    "![gateway RSS per turn](bench/long-haul-rss.svg)",
    ...(hasLiveHeap(h) ? ["![gateway heap after a full collection](bench/long-haul-heap.svg)"] : []),
    "![host transcript per turn](bench/long-haul-transcript.svg)",
  );
  return lines;
}

const hasLiveHeap = (h) => h.runs.some((r) => r.perTurn.some((p) => p.liveHeap));

/** Heap used after a forced full collection, turn 50 → end ("n/a" for runs measured before it was recorded). */
function liveHeapCell(h) {
  if (!h?.atTurn50 || !h?.atEnd) return "n/a";
  return `${Math.round(h.atTurn50.heapUsedMb)} → ${Math.round(h.atEnd.heapUsedMb)}`;
}

/** Section 10: the sessions at once beside one session alone. */
export function sessionsSection(s) {
  if (s.error) return [`Sessions at once failed: ${s.error.split("\n")[0]}`];
  const row = (name, f, turns) =>
    `| ${name} | ${f.answered}/${turns} | ${f.crossed.length} | ${f.lostCaptures.length} | ${f.captured} | ${f.shownWithHandle} | ${f.hostCutWithoutHandle} | ${f.engineMsP50} | ${f.engineOwnMsP50 ?? "n/a"} | ${waitsCell(f.engineWaitsP50)} | ${fmtInt(f.promptBytesP50)} | ${fmtInt(f.turnMsP50)} |`;
  return [
    `One gateway on ${s.version}: one session of ${s.turns} turns alone, then ${s.sessions} sessions of the same agent sending ${s.turns} turns each at once (${s.wallSec.alone} s and ${s.wallSec.atOnce} s). Every output ends with a marker of its session and turn: a request or a \`ledger_search\` answer showing another session's marker counts as crossed; an output the store holds under another session counts as crossed too; one neither seen inline nor held by the store under its own session counts as lost. Each session searches once for the next session's marker and once for its own (${s.atOnce.searchFoundOwn}/${s.sessions} found their own).`,
    "",
    "| run | answered | crossed | lost | outputs stored | shown with a handle in their turn | shown as the host's cut copy, no handle | engine ms p50 (wall) | engine's own work ms p50 | awaited ms p50, by step | prompt bytes p50 | turn ms p50 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    row("one session alone", s.alone, s.turns),
    row(`${s.sessions} at once`, s.atOnce, s.sessions * s.turns),
    "",
    `After the run: gateway RSS ${Math.round(s.rssMb)} MB, plugin state ${mb(s.pluginStateBytes)} MB, artifact store ${mb(s.storeBytes)} MB.`,
    ...(s.atOnce.backgrounded
      ? [
          "",
          `${s.atOnce.backgrounded} turns at once had their \`exec\` sent to the background by the host (it ran past \`tools.exec.backgroundMs\`, 10 s, under load): their tool result is the host's "Command still running" note, with no output to capture.`,
        ]
      : []),
    "",
    "Engine ms p50 is each assemble's wall time; its own work is that time less what it awaited (pending captures, session state, the store, the summary): with other sessions in the process, an await also waits for their turn on the event loop.",
  ];
}

/** The p50 wait of each step that awaited something ("n/a" for runs measured before waits were recorded). */
function waitsCell(waits) {
  if (!waits) return "n/a";
  const steps = Object.entries(waits).filter(([, ms]) => ms > 0);
  return steps.length ? steps.map(([step, ms]) => `${step} ${ms}`).join(", ") : "none";
}

/** Writes the long haul's charts into `chartDir`: prompt, RSS and transcript per sampled turn, every run. */
export async function writeLongHaulCharts(h, chartDir) {
  if (!h || h.error) return;
  const chart = (file, title, yLabel, pick) =>
    writeFile(
      new URL(file, chartDir),
      lineChart({
        title,
        xLabel: "turn",
        yLabel,
        series: h.runs
          .map((r) => ({
            name: runName(r),
            dash: r.engine === "legacy",
            points: r.perTurn.map((p) => [p.turn, pick(p)]).filter(([, v]) => v !== null),
          }))
          .filter((series) => series.points.length > 0),
      }),
    );
  await chart("long-haul-prompt.svg", "Main prompt per turn (bytes of messages)", "KB", (p) => p.promptBytes / 1024);
  await chart("long-haul-rss.svg", "Gateway process group RSS", "MB", (p) => p.rssMb);
  if (hasLiveHeap(h))
    await chart("long-haul-heap.svg", "Gateway heap after a full collection (every 50 turns)", "MB", (p) =>
      p.liveHeap ? p.liveHeap.heapUsedMb : null,
    );
  await chart("long-haul-transcript.svg", "Host transcript file", "MB", (p) => p.transcriptBytes / MB);
}
