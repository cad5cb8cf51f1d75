import { shortHandleOf } from "../../artifacts/index.js";
import { readViewRecords, viewRecordPath, type ViewRecord } from "../../state/view-record.js";
import type { ChatCommandDeps, ChatRequest } from "../core/chat-request.js";
import { formatBytes } from "../core/format.js";
import { figuresLine, sessionFigures, tallyStored } from "./session-figures.js";
import { userTurnOfView, viewHeadline } from "./view-render.js";

/** `/ledger view`: what the model saw at the session's last recorded turn. */
export async function chatViewText(deps: ChatCommandDeps, request: ChatRequest): Promise<string> {
  const { agentId, sessionKey } = request;
  if (!sessionKey) return "No session in this context.";
  const views = await readViewRecords(viewRecordPath(deps.root, agentId, sessionKey));
  const v: ViewRecord | undefined = views.at(-1);
  if (!v)
    return `No assembled view recorded for ${sessionKey} yet (one is recorded at each turn context-ledger assembles).`;
  const state = await deps.sessions.read(agentId, sessionKey);
  const stored = await tallyStored(deps.store(agentId), sessionKey);
  const lines = [
    `What the model saw · turn ${userTurnOfView(v)} · ${v.at}`,
    `Session so far: ${figuresLine({ ...sessionFigures(state), stored })}`,
    ...viewHeadline(v),
  ];
  const roles = new Map<string, number>();
  for (const m of v.messages) roles.set(m.role, (roles.get(m.role) ?? 0) + 1);
  lines.push(`Kept by role: ${[...roles].map(([r, n]) => `${r} ${n}`).join(", ") || "none"}`);
  for (const o of v.offloaded.slice(0, 8))
    lines.push(`  offloaded ${o.handle} · ${o.bytes === null ? "?" : formatBytes(o.bytes)} · ${o.toolName ?? "-"}`);
  if (v.offloaded.length > 8) lines.push(`  … ${v.offloaded.length - 8} more`);
  const first = v.offloaded[0];
  if (first) lines.push(`Fetch a slice: /ledger fetch ${shortHandleOf(first.handle)} lines 1-40`);
  return lines.join("\n");
}
