import { resolveAgentSettings } from "../../config/parse-config.js";
import { collectUnreadable } from "../../state/reference-scan.js";
import { knownAgentIds, pluginOffReason } from "./doctor-host.js";
import type { DoctorFinding } from "./doctor-types.js";
import { listHostTranscripts, transcriptHandles } from "../sessions/host-sessions.js";
import type { OperatorContext } from "../core/operator-context.js";

/** Sessions named one by one before the rest is counted. */
const MAX_NAMED_SESSIONS = 20;

/**
 * Sessions of agents context-ledger does not run for (the plugin off in the host config, or the agent disabled in
 * its config) whose host transcripts still cite handles: the model there sees stubs, and their outputs live only in
 * the ledger's store, which an uninstall leaves behind and a removed state folder loses. Each such session is a
 * warning naming the export that keeps its outputs.
 */
export async function checkStubsWhileOff(ctx: OperatorContext, prog: string): Promise<DoctorFinding[]> {
  if (ctx.hostConfigError) return [];
  const globalOff = pluginOffReason(ctx);
  const off: { agentId: string; reason: string }[] = [];
  for (const agentId of await knownAgentIds(ctx)) {
    const reason =
      globalOff ??
      (resolveAgentSettings(ctx.config, agentId).enabled
        ? undefined
        : ctx.config.enabled
          ? `agents.${agentId}.enabled is false in its config`
          : "its config has enabled: false");
    if (reason) off.push({ agentId, reason });
  }
  if (off.length === 0) return [];

  const out: DoctorFinding[] = [];
  let sessions = 0;
  for (const { agentId, reason } of off) {
    const { transcripts, unreadable } = await listHostTranscripts({ ...ctx, agentId });
    const fail = collectUnreadable(unreadable);
    const bySession = new Map<string, { handles: Set<string>; file: string }>();
    for (const t of transcripts) {
      const handles = await transcriptHandles(t, fail);
      if (handles.size === 0) continue;
      const session = t.sessionKey ?? t.sessionId;
      const entry = bySession.get(session) ?? { handles: new Set<string>(), file: t.file };
      for (const h of handles) entry.handles.add(h);
      bySession.set(session, entry);
    }
    for (const [session, { handles, file }] of [...bySession].sort((a, b) => a[0].localeCompare(b[0]))) {
      if (++sessions > MAX_NAMED_SESSIONS) continue;
      out.push({
        check: "stubs",
        level: "warn",
        message: `session ${session} of agent ${agentId} still cites ${handles.size} offloaded output(s) while context-ledger is off for it (${reason}); they live only in the ledger's store: keep them with \`${prog} export --agent ${agentId} --session ${session} --out DIR\``,
        path: file,
      });
    }
    for (const u of unreadable)
      out.push({
        check: "stubs",
        level: "warn",
        message: `could not read ${u.source} (${u.reason}): sessions there may still cite offloaded outputs`,
        path: u.source,
      });
  }
  if (sessions > MAX_NAMED_SESSIONS)
    out.push({
      check: "stubs",
      level: "warn",
      message: `${sessions - MAX_NAMED_SESSIONS} more session(s) still cite offloaded outputs; \`${prog} export --agent ID --out DIR\` keeps every output of an agent`,
    });
  if (out.length === 0)
    out.push({
      check: "stubs",
      level: "ok",
      message: `no session of ${off.map((o) => o.agentId).join(", ")} (context-ledger off) cites an offloaded output`,
    });
  return out;
}
