import { formatCount, formatTable, plural } from "../core/format.js";
import { describeTally } from "./session-figures.js";
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
    `  turns            ${formatCount(s.turns)} (your messages)`,
    `  offloaded        ${describeTally(s.stored)}`,
    `  updated          ${s.updatedAt ?? "-"}`,
    `  prompt budget    ${formatCount(s.promptBudget)} tokens (the last turn's main prompt)`,
    `  assembled        ${formatCount(s.assembledTokens)} tokens${pct}`,
    ...(s.hostInTurnAssembles
      ? [
          `  other assembles  ${formatCount(s.hostInTurnAssembles.count)} by the host for the turn (budgets down to ${formatCount(s.hostInTurnAssembles.smallestBudget)}), not the turn's prompt`,
        ]
      : []),
    `  raw history      ${formatCount(s.rawHistoryTokens)} tokens`,
    `  debt             ${formatCount(s.debtTokens)} tokens after the turn's paydown, ${formatCount(s.debtBeforePaydownTokens)} before (trend ${trendLabel(s.debtTrend)})`,
    `  reducible        ${formatCount(s.reducibleChars)} chars of tool output`,
    `  compactions      ${formatCount(s.compactions)} in the host's transcript (${plural(s.checkpoints, "checkpoint")} sealed)`,
    `  last checkpoint  ${s.lastCheckpoint ? `${s.lastCheckpoint.handle} (${s.lastCheckpoint.at}, ${formatCount(s.lastCheckpoint.coveredCount)} messages)` : "-"}`,
    ...(s.error ? [`  ERROR            ${s.error}`] : []),
    "",
  ];
  let out = lines.join("\n");
  if (s.recentTurns.length > 0) {
    out += "Recent commits (a host line may commit a turn in steps):\n";
    out += indent(
      formatTable(
        ["COMMIT", "AT", "MESSAGES", "TOKENS", "OFFLOADED"],
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
        ["AT", "TURN", "BUDGET", "ASSEMBLED", "RAW", "DEBT BEFORE", "DEBT AFTER PAYDOWN"],
        s.debtHistory.map((d) => [
          d.at,
          d.userTurn === undefined ? (d.turn === undefined ? "-" : String(d.turn)) : String(d.userTurn),
          formatCount(d.promptBudget),
          formatCount(d.assembledTokens),
          formatCount(d.rawHistoryTokens),
          formatCount(d.debtTokens),
          d.afterPaydown ? formatCount(d.afterPaydown.debtTokens) : "-",
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
