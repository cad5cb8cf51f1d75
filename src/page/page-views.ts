/**
 * The Ledger page's three views: the agents and their sessions; one session (chart, figures, what left the prompt
 * and why, the summary the model last read, its fetches, the prompt contract per recorded prompt); one stored output
 * beside the stub that replaced it.
 */
import { isHandle } from "../artifacts/index.js";
import { listLedgerAgents, listLedgerSessions } from "../cli/core/ledger-scan.js";
import { formatBytes, formatCount } from "../cli/core/format.js";
import {
  describeTally,
  emptyTally,
  figuresLine,
  sessionFigures,
  tallyStore,
  userTurnReadings,
} from "../cli/inspect/session-figures.js";
import { cacheLine, userTurnOfView, viewHeadline } from "../cli/inspect/view-render.js";
import { readViewRecords, viewRecordPath, isOffloadedMessage, type ViewRecord } from "../state/view-record.js";
import { turnChart } from "./page-chart.js";
import { contractSection } from "./page-contract.js";
import { contextWindowOf, fetchOriginal, type PageDeps } from "./page-data.js";
import { esc, link, pageHtml } from "./page-html.js";

/** Tools whose results are the model reading back what left its prompt. */
const FETCH_TOOLS: ReadonlySet<string> = new Set(["ledger_fetch", "ledger_peek", "ledger_search"]);

/** The index: every agent with its store and sessions. */
export async function indexPage(deps: PageDeps, base: string): Promise<string> {
  const rows: string[] = [];
  for (const agentId of await listLedgerAgents(deps.root)) {
    const tally = await tallyStore(deps.store(agentId));
    rows.push(`<h2>Agent ${esc(agentId)}</h2><p>${esc(describeTally(tally.all))}</p>`);
    const sessions = await listLedgerSessions(deps.root, agentId);
    if (sessions.length === 0) {
      rows.push("<p>No sessions.</p>");
      continue;
    }
    rows.push(
      "<table><tr><th>Session</th><th>Turns</th><th>Offloaded</th><th>Compactions</th><th>Debt after paydown</th><th>Updated</th></tr>",
    );
    for (const s of sessions) {
      const f = sessionFigures(s.state);
      const stored = tally.bySession.get(s.sessionKey) ?? emptyTally();
      rows.push(
        `<tr><td>${link(base, "session", { agent: agentId, key: s.sessionKey }, s.sessionKey)}</td><td class="n">${formatCount(f.userTurns)}</td><td class="n">${formatCount(stored.toolOutputs)}</td><td class="n">${formatCount(f.compactions)}</td><td class="n">${esc(formatCount(f.debtAfterPaydown))}</td><td>${esc(s.state?.updatedAt ?? "-")}</td></tr>`,
      );
    }
    rows.push("</table>");
  }
  const body = rows.length > 0 ? rows.join("\n") : "<p>No context-ledger state yet.</p>";
  return pageHtml(
    "Ledger",
    `<h1>Ledger</h1><p class="muted">Read-only. Figures as docs/glossary.md defines them.</p>\n${body}`,
  );
}

/** Which session a page shows, and the route it links within. */
export interface PageTarget {
  base: string;
  agentId: string;
  sessionKey: string;
}

/** One session: figures, chart, what left the prompt and why, the summary, the model's fetches, the contract. */
export async function sessionPage(
  deps: PageDeps,
  { base, agentId, sessionKey }: PageTarget,
  hostConfig: unknown,
): Promise<string | undefined> {
  const known = await listLedgerSessions(deps.root, agentId);
  if (!known.some((s) => s.sessionKey === sessionKey)) return undefined;
  const state = await deps.sessions.read(agentId, sessionKey);
  const tally = await tallyStore(deps.store(agentId));
  const figures = { ...sessionFigures(state), stored: tally.bySession.get(sessionKey) ?? emptyTally() };
  const turns = userTurnReadings(state.debtHistory);
  const views = await readViewRecords(viewRecordPath(deps.root, agentId, sessionKey)).catch(() => []);
  const v = views.at(-1);
  const parts = [
    `<p>${link(base, "", {}, "← all sessions")}</p>`,
    `<h1>Session <code>${esc(sessionKey)}</code> · agent ${esc(agentId)}</h1>`,
    `<p class="figures">${esc(figuresLine(figures))}</p>`,
    "<h2>Prompt per turn</h2>",
    turnChart(turns, contextWindowOf(hostConfig, agentId)) || "<p>No turn assembled yet.</p>",
    turnTable(turns),
  ];
  if (v) parts.push(...lastView(base, agentId, sessionKey, v));
  if (views.length > 0) {
    parts.push(
      '<h2>Cache</h2><p class="muted">The provider\'s cache share is not reported to the engine; whether each recorded prompt kept its front (what a prefix cache serves):</p><ul>',
      ...views.map((r) => `<li>turn ${userTurnOfView(r)}: ${esc(cacheLine(r))}</li>`),
      "</ul>",
    );
  }
  parts.push(contractSection(views));
  return pageHtml(`Ledger · ${sessionKey}`, parts.join("\n"));
}

function turnTable(turns: ReturnType<typeof userTurnReadings>): string {
  if (turns.length === 0) return "";
  const rows = turns.map(
    (t) =>
      `<tr><td class="n">${t.userTurn}</td><td class="n">${formatCount(t.assembledTokens)}</td><td class="n">${formatCount(t.promptBudget)}</td><td class="n">${formatCount(t.debtBefore)}</td><td class="n">${t.debtAfter === null ? "-" : formatCount(t.debtAfter)}</td></tr>`,
  );
  return `<table class="turns"><tr><th>Turn</th><th>Prompt</th><th>Budget</th><th>Debt before paydown</th><th>Debt after</th></tr>${rows.join("")}</table>`;
}

function lastView(base: string, agentId: string, sessionKey: string, v: ViewRecord): string[] {
  const off = v.messages.filter(isOffloadedMessage);
  const out = [
    `<h2>The last prompt (turn ${userTurnOfView(v)}, ${esc(v.at)})</h2>`,
    `<ul>${viewHeadline(v)
      .map((l) => `<li>${esc(l)}</li>`)
      .join("")}</ul>`,
    "<h2>What left the prompt, and why</h2>",
    `<p>${esc(`Window from message #${v.plan.start} (${v.plan.reason}); ${formatCount(Math.max(0, v.plan.total - v.plan.kept))} older messages left out, kept in the transcript and the summary. Tool outputs over the size rule are replaced by a stub; the original stays in the store.`)}</p>`,
  ];
  const handles = new Set([...v.offloaded.map((o) => o.handle), ...off.flatMap((m) => m.handles ?? [])]);
  if (handles.size === 0) out.push("<p>No output was offloaded in this prompt.</p>");
  else {
    out.push('<table class="offloaded"><tr><th>Stub (as the model read it)</th><th>Original</th></tr>');
    for (const handle of handles) {
      const m = off.find((x) => x.handles?.includes(handle));
      const o = v.offloaded.find((x) => x.handle === handle);
      const size = o?.bytes === null || o?.bytes === undefined ? "" : ` · ${formatBytes(o.bytes)}`;
      out.push(
        `<tr><td><pre>${esc(m?.preview ?? handle)}</pre></td><td>${link(base, "artifact", { agent: agentId, key: sessionKey, handle }, "show the original")}<div class="muted">${esc(`${o?.toolName ?? m?.toolName ?? "-"}${size}`)}</div></td></tr>`,
      );
    }
    out.push("</table>");
  }
  out.push(
    "<h2>The summary as the model last read it</h2>",
    v.summary ? `<pre class="summary">${esc(v.summary.text)}</pre>` : "<p>None injected.</p>",
  );
  const fetches = v.messages.filter((m) => m.toolName !== undefined && FETCH_TOOLS.has(m.toolName));
  out.push(
    "<h2>The model's fetches (in this prompt)</h2>",
    fetches.length === 0
      ? "<p>None.</p>"
      : `<ul>${fetches.map((m) => `<li><code>${esc(m.toolName ?? "")}</code> ${esc(m.preview)}</li>`).join("")}</ul>`,
  );
  return out;
}

/** One stored output beside the stub the model read instead (the original redacted and bounded as ledger_fetch). */
export async function artifactPage(
  deps: PageDeps,
  { base, agentId, sessionKey }: PageTarget,
  handle: string,
): Promise<string | undefined> {
  if (!isHandle(handle)) return undefined;
  const meta = await deps.store(agentId).tryReadMeta(handle);
  if (!meta) return undefined;
  const views = await readViewRecords(viewRecordPath(deps.root, agentId, sessionKey)).catch(() => []);
  const stub = views
    .flatMap((v) => v.messages)
    .filter((m) => m.handles?.includes(handle))
    .at(-1);
  const original = await fetchOriginal(deps, agentId, handle);
  const right = "text" in original ? original.text : `Not readable: ${original.error}`;
  return pageHtml(
    `Ledger · ${handle}`,
    [
      `<p>${link(base, "session", { agent: agentId, key: sessionKey }, "← the session")}</p>`,
      `<h1>Stored output <code>${esc(handle)}</code></h1>`,
      `<p>${esc(`${meta.kind} · ${meta.origin.toolName ?? "-"} · ${formatBytes(meta.bytes)} · ${formatCount(meta.lines)} lines · stored ${meta.createdAt}`)}</p>`,
      `<div class="pair"><div><h2>The stub the model read</h2><pre class="stub">${esc(stub?.preview ?? "(no recorded prompt of this session showed it)")}</pre></div>`,
      `<div><h2>The original (redacted, as ledger_fetch answers)</h2><pre class="original">${esc(right)}</pre></div></div>`,
    ].join("\n"),
  );
}
