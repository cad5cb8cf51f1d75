import { formatCount, formatTable } from "../core/format.js";
import type { SessionStatus } from "./status-report.js";
import { trendLabel } from "./status-debt-trend.js";

/** `status --session KEY`: every figure of one session, its recent turns and debt readings. */
export function renderSessionDetail(s: SessionStatus, prog = "context-ledger"): string {
  const pct =
    s.promptBudget && s.assembledTokens !== null
      ? ` (${((s.assembledTokens / s.promptBudget) * 100).toFixed(0)}% of budget)`
      : "";
  const lines = [
    `Session ${s.sessionKey}`,
    `  agent            ${s.agentId}`,
    `  session id       ${s.sessionId ?? "-"}`,
    `  turns            ${formatCount(s.turns)}`,
    `  updated          ${s.updatedAt ?? "-"}`,
    `  prompt budget    ${formatCount(s.promptBudget)} tokens (the last turn's main prompt)`,
    `  assembled        ${formatCount(s.assembledTokens)} tokens${pct}`,
    ...(s.hostInTurnAssembles
      ? [
          `  other assembles  ${formatCount(s.hostInTurnAssembles.count)} by the host for the turn (budgets down to ${formatCount(s.hostInTurnAssembles.smallestBudget)}), not the turn's prompt`,
        ]
      : []),
    `  raw history      ${formatCount(s.rawHistoryTokens)} tokens`,
    `  debt             ${formatCount(s.debtTokens)} tokens (trend ${trendLabel(s.debtTrend)})`,
    `  reducible        ${formatCount(s.reducibleChars)} chars of tool output`,
    `  compactions      ${formatCount(s.compactions)}`,
    `  last checkpoint  ${s.lastCheckpoint ? `${s.lastCheckpoint.handle} (${s.lastCheckpoint.at}, ${formatCount(s.lastCheckpoint.coveredCount)} messages)` : "-"}`,
    ...(s.error ? [`  ERROR            ${s.error}`] : []),
    "",
  ];
  let out = lines.join("\n");
  if (s.recentTurns.length > 0) {
    out += "Recent turns:\n";
    out += indent(
      formatTable(
        ["TURN", "AT", "MESSAGES", "TOKENS", "OFFLOADED"],
        s.recentTurns.map((t) => [
          String(t.seq),
          t.at,
          formatCount(t.messages),
          formatCount(t.tokens),
          formatCount(t.handles),
        ]),
      ),
    );
  }
  if (s.debtHistory.length > 0) {
    out += "Debt readings:\n";
    out += indent(
      formatTable(
        ["AT", "TURN", "BUDGET", "ASSEMBLED", "RAW", "DEBT"],
        s.debtHistory.map((d) => [
          d.at,
          d.turn === undefined ? "-" : String(d.turn),
          formatCount(d.promptBudget),
          formatCount(d.assembledTokens),
          formatCount(d.rawHistoryTokens),
          formatCount(d.debtTokens),
        ]),
      ),
    );
  }
  out += `What the model saw last: \`${prog} view --session ${s.sessionKey}${s.agentId !== "main" ? ` --agent ${s.agentId}` : ""}\`\n`;
  return out;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => (l ? `  ${l}` : l))
    .join("\n");
}
