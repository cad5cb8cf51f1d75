import { writeFileAtomic } from "../../fs/atomic-write.js";
import { readViewRecords, viewRecordPath, type ViewRecord } from "../../state/view-record.js";
import { COMMON_OPTIONS, intFlag, stringFlag } from "../core/args.js";
import { runCommand } from "../core/command.js";
import { CliFailure, EXIT } from "../core/cli-failure.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { listLedgerAgents, listLedgerSessions } from "../core/ledger-scan.js";
import { operatorContextOf } from "../core/operator-context.js";
import { renderViewHtml, renderViewText, userTurnOfView } from "./view-render.js";
import type { LedgerConfig } from "../../config/schema.js";
import { readAgentStore } from "../core/agent-store.js";
import { sessionFigures, tallyStored, type SessionSummaryFigures } from "./session-figures.js";

/** Schema tag of `view --json`. */
export const VIEW_SCHEMA = "context-ledger.view.v1";

const SPEC = {
  ...COMMON_OPTIONS,
  session: { type: "string" },
  turn: { type: "string" },
  html: { type: "string" },
} as const;
const USAGE = `Usage: {prog} view --session KEY [--turn N] [--agent ID] [--json | --html PATH]
What the model saw in the last assembled prompt of a session (or of turn N): the kept messages with their
tokens, what was offloaded (handles and sizes), the summary block, budget and estimate, whether the kept
prefix was reused (cache-stable) or re-planned, and the maintenance debt. --html writes a self-contained page.
Exit codes: 0 ok, 1 usage error, 2 unknown session or turn, 3 unreadable record.
`;

/** `context-ledger view`: the last assembled view of one session. */
export async function runViewCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "view", options: SPEC, usage: USAGE }, async (args, json) => {
    const prog = progName(io);
    const sessionKey = stringFlag(args, "session") ?? args.positionals[0];
    if (!sessionKey)
      throw new CliFailure(
        "input_invalid",
        "Expected --session KEY, got none",
        EXIT.usage,
        `${prog} status (lists the sessions)`,
      );
    const turn = intFlag(args, "turn", 1, Number.MAX_SAFE_INTEGER);
    const ctx = await operatorContextOf(args, io.env);
    const found = await findViews(ctx.ledgerRoot, sessionKey, stringFlag(args, "agent"));
    if (!found) {
      const known = (
        await Promise.all((await listLedgerAgents(ctx.ledgerRoot)).map((a) => listLedgerSessions(ctx.ledgerRoot, a)))
      )
        .flat()
        .map((s) => s.sessionKey);
      throw new CliFailure(
        "not_found",
        `no recorded view for session \`${sessionKey}\` under ${ctx.ledgerRoot}; sessions: ${known.slice(0, 10).join(", ") || "none"} (a view is recorded at each assemble from this version on)`,
        EXIT.notFound,
        `${prog} status --all`,
      );
    }
    const view = turn === undefined ? found.views.at(-1) : found.views.findLast((v) => userTurnOfView(v) === turn);
    const turns = [...new Set(found.views.map(userTurnOfView))];
    if (!view) {
      throw new CliFailure(
        "not_found",
        `no view of turn ${turn} for session \`${sessionKey}\`; recorded turns: ${turns.join(", ")}`,
        EXIT.notFound,
        `${prog} view --session ${sessionKey} --turn ${turns.at(-1) ?? 1}`,
      );
    }
    const figures = await sessionSummaryFigures(ctx.ledgerRoot, found.agentId, sessionKey, {
      config: ctx.config,
      env: io.env,
    });
    const htmlPath = stringFlag(args, "html");
    if (htmlPath) {
      await writeFileAtomic(htmlPath, renderViewHtml(view, turns, figures));
      if (json) writeJson(io, { schema: VIEW_SCHEMA, html: htmlPath, turn: userTurnOfView(view), turns });
      else io.stdout.write(`wrote ${htmlPath} (turn ${userTurnOfView(view)} of session ${sessionKey})\n`);
      return 0;
    }
    if (json) writeJson(io, { schema: VIEW_SCHEMA, turns, figures, view });
    else io.stdout.write(renderViewText(view, turns, prog, figures));
    return 0;
  });
}

/** The session's figures from its state and the agent's store (null when the session has no state). */
export async function sessionSummaryFigures(
  root: string,
  agentId: string,
  sessionKey: string,
  opening: { config: LedgerConfig; env: NodeJS.ProcessEnv },
): Promise<SessionSummaryFigures | null> {
  const scanned = (await listLedgerSessions(root, agentId)).find((s) => s.sessionKey === sessionKey);
  if (!scanned?.state) return null;
  const stored = await readAgentStore({ ...opening, ledgerRoot: root, agentId }, (store) =>
    tallyStored(store, sessionKey),
  );
  return { ...sessionFigures(scanned.state), stored };
}

/** The recorded views of a session: in `agent` when given, else in the first agent that has it. */
export async function findViews(
  root: string,
  sessionKey: string,
  agent?: string,
): Promise<{ agentId: string; views: ViewRecord[] } | undefined> {
  const agents = agent ? [agent] : await listLedgerAgents(root);
  for (const agentId of agents) {
    const views = await readViewRecords(viewRecordPath(root, agentId, sessionKey));
    if (views.length > 0) return { agentId, views };
  }
  return undefined;
}
