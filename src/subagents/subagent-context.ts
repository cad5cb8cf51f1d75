import { promises as fsp } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { agentIdFromSessionKey } from "../host/normalize.js";
import type { LedgerRuntime } from "../runtime/ledger-runtime.js";
import { renderSummary } from "../summary/render-summary.js";
import { tryLoadSummary } from "../summary/sidecar.js";

/** File in a child's session folder holding the summary it inherited from its parent. */
export const INHERITED_SUMMARY_FILE = "inherited-summary.txt";

/** Inputs of {@link prepareSubagentContext}. */
export interface SubagentSpawnInput {
  parentSessionKey: unknown;
  childSessionKey: unknown;
  contextMode?: unknown;
}

/**
 * A `fork` child gets a bounded copy of the parent's newest summary text;
 * an `isolated` child gets nothing. Returns a rollback that removes the copy
 * when the spawn fails.
 */
export async function prepareSubagentContext(
  rt: LedgerRuntime,
  input: SubagentSpawnInput,
  fallbackAgentId: string,
): Promise<{ rollback: () => Promise<void> } | undefined> {
  if (input.contextMode !== "fork") return undefined;
  if (typeof input.parentSessionKey !== "string" || typeof input.childSessionKey !== "string") return undefined;
  const parentAgent = agentIdFromSessionKey(input.parentSessionKey) ?? fallbackAgentId;
  const childAgent = agentIdFromSessionKey(input.childSessionKey) ?? parentAgent;
  const settings = rt.settings(parentAgent);
  const text = await newestSummaryText(rt.sessions.dir(parentAgent, input.parentSessionKey), (t) => rt.redact(settings, t));
  if (!text) return undefined;
  const bounded = text.length > settings.summary.maxInjectedChars ? `${text.slice(0, settings.summary.maxInjectedChars - 40)}\n[... parent summary truncated ...]` : text;
  const file = path.join(rt.sessions.dir(childAgent, input.childSessionKey), INHERITED_SUMMARY_FILE);
  await writeFileAtomic(file, bounded);
  void rt.events.write({ op: "subagent:fork", parent: input.parentSessionKey, child: input.childSessionKey, chars: bounded.length });
  return { rollback: () => fsp.rm(file, { force: true }) };
}

/** Cleans what a child inherited when it ends. */
export async function endSubagentContext(rt: LedgerRuntime, childSessionKey: unknown, fallbackAgentId: string): Promise<void> {
  if (typeof childSessionKey !== "string") return;
  const agent = agentIdFromSessionKey(childSessionKey) ?? fallbackAgentId;
  await fsp.rm(path.join(rt.sessions.dir(agent, childSessionKey), INHERITED_SUMMARY_FILE), { force: true });
}

async function newestSummaryText(dir: string, redact: (text: string) => string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).filter((n) => n.startsWith("summary-") && n.endsWith(".json"));
  } catch {
    return undefined;
  }
  let newest: { name: string; mtime: number } | undefined;
  for (const name of names) {
    const mtime = (await fsp.stat(path.join(dir, name))).mtimeMs;
    if (!newest || mtime > newest.mtime) newest = { name, mtime };
  }
  if (!newest) return undefined;
  const state = await tryLoadSummary(path.join(dir, newest.name));
  return state ? renderSummary(state, { maxChars: 4_000, redact }) : undefined;
}
