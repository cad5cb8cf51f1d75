import type { ChatCommandDeps, ChatRequest } from "../core/chat-request.js";
import { formatBytes, formatCount, plural } from "../core/format.js";
import { PLUGIN_ID, selectedContextEngine } from "../core/operator-context.js";
import { debtTrend, inTurnAssembles, trendLabel } from "./status-debt-trend.js";
import { describeTally, emptyTally, sessionFigures, tallyStore } from "./session-figures.js";

/** `/ledger status`: the agent's store, whether this engine serves the chat, and the session's budget and debt. */
export async function chatStatusText(deps: ChatCommandDeps, request: ChatRequest): Promise<string> {
  const { agentId, sessionKey, hostConfig } = request;
  const store = deps.store(agentId);
  // With the bucket down the listing holds the local copies alone, and the backlog says what waits to upload.
  const tally = await tallyStore(store);
  const backlog = await store.pendingUploads?.();
  const stats = tally.stats;
  const head = [
    `context-ledger · agent ${agentId}: ${describeTally(tally.all)}; ${formatBytes(stats.bytes)} original, ${formatBytes(stats.storedBytes)} on disk`,
    ...(backlog
      ? [
          backlog.objects === 0
            ? "Uploads: nothing waits in the local spool"
            : `Uploads: ${plural(backlog.objects, "object")} (${formatBytes(backlog.bytes)}) wait in the local spool${backlog.lastError ? `; last upload error: ${backlog.lastError}` : ""}; they upload when the bucket answers`,
        ]
      : []),
  ].join("\n");
  // Loaded but not selected: the host runs another engine, so this session's last figures are history, not state.
  const slot = hostConfig ? selectedContextEngine(hostConfig) : PLUGIN_ID;
  if (slot !== PLUGIN_ID)
    return `${head}\ncontext-ledger is off: plugins.slots.contextEngine is ${slot ? `"${slot}"` : "unset"}, so the host assembles this chat's prompts with ${slot ? `"${slot}"` : "its legacy engine"}. Stored outputs stay fetchable (/ledger fetch). To switch it on: \`openclaw config set plugins.slots.contextEngine ${PLUGIN_ID}\`, then restart the gateway.`;
  if (!deps.settings(agentId).enabled)
    return `${head}\ncontext-ledger is disabled for agent ${agentId} (plugin config: \`enabled: false\` for it or for all agents): its turns pass through unchanged and nothing new is recorded.`;
  if (!sessionKey) return `${head}\n(no session in this context)`;
  const s = await deps.sessions.read(agentId, sessionKey);
  const d = s.lastDebt;
  if (!d) return `${head}\nSession ${sessionKey}: no turn assembled by context-ledger yet.`;
  const trend = debtTrend(s.debtHistory);
  const inTurn = inTurnAssembles(d);
  const figures = sessionFigures(s);
  return [
    head,
    `Session ${sessionKey}: ${plural(figures.userTurns, "turn")}, ${describeTally(tally.bySession.get(sessionKey) ?? emptyTally())}, ${plural(figures.compactions, "compaction")} in the transcript`,
    `Prompt ${formatCount(d.assembledTokens)} of ${formatCount(d.promptBudget)} budget tokens; raw history ${formatCount(d.rawHistoryTokens)} tokens`,
    ...(inTurn
      ? [
          `(the turn's main prompt; the host's ${plural(inTurn.count, "other assemble")} for the turn had budgets down to ${formatCount(inTurn.smallestBudget)})`,
        ]
      : []),
    `Debt ${formatCount(figures.debtAfterPaydown)} tokens after the turn's paydown (${formatCount(figures.debtBeforePaydown)} before; ${trendLabel(trend)}); debt never enlarges the prompt`,
  ].join("\n");
}
