import { promises as fsp } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { mtimeOrMissing } from "../fs/mtime.js";
import { createVersionedCache } from "../fs/versioned-cache.js";
import { agentIdFromSessionKey } from "../host/normalize.js";
import type { LedgerServices } from "../runtime/services.js";
import { renderSummary } from "../summary/render-summary.js";
import { tryLoadSummary } from "../summary/sidecar.js";
import { newestSidecar } from "../summary/summary-service.js";
import { stateSlot } from "../runtime/state-slots.js";

/** What preparing a forked child's context uses: session state, settings, redaction, events. */
export type SubagentDeps = Pick<LedgerServices, "sessions" | "settings" | "redact" | "events">;

/** File in a child's session folder holding the summary it inherited from its parent. */
export const INHERITED_SUMMARY_FILE = "inherited-summary.txt";
/** The line a child's prompt shows above the summary it inherited. */
export const INHERITED_SUMMARY_HEADING = "Context inherited from the parent session (this is a forked subagent):";

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
  deps: SubagentDeps,
  input: SubagentSpawnInput,
  fallbackAgentId: string,
): Promise<{ rollback: () => Promise<void> } | undefined> {
  if (input.contextMode !== "fork") return undefined;
  if (typeof input.parentSessionKey !== "string" || typeof input.childSessionKey !== "string") return undefined;
  const parentAgent = agentIdFromSessionKey(input.parentSessionKey) ?? fallbackAgentId;
  const childAgent = agentIdFromSessionKey(input.childSessionKey) ?? parentAgent;
  const settings = deps.settings(parentAgent);
  // Rendered to leave the heading room inside the child's summary reserve (see readInheritedSummary).
  const maxChars = Math.max(200, settings.summary.maxInjectedChars - INHERITED_SUMMARY_HEADING.length - 1);
  const bounded = await newestSummaryText(
    deps.sessions.dir(parentAgent, input.parentSessionKey),
    (t) => deps.redact(settings, t),
    maxChars,
  );
  if (!bounded) return undefined;
  const file = path.join(deps.sessions.dir(childAgent, input.childSessionKey), INHERITED_SUMMARY_FILE);
  await writeFileAtomic(file, bounded);
  void deps.events.write({
    op: "subagent:fork",
    parent: input.parentSessionKey,
    child: input.childSessionKey,
    chars: bounded.length,
  });
  return { rollback: () => fsp.rm(file, { force: true }) };
}

/** Cleans what a child inherited when it ends. */
export async function endSubagentContext(
  deps: Pick<LedgerServices, "sessions">,
  childSessionKey: unknown,
  fallbackAgentId: string,
): Promise<void> {
  if (typeof childSessionKey !== "string") return;
  const agent = agentIdFromSessionKey(childSessionKey) ?? fallbackAgentId;
  await fsp.rm(path.join(deps.sessions.dir(agent, childSessionKey), INHERITED_SUMMARY_FILE), { force: true });
}

async function newestSummaryText(
  dir: string,
  redact: (text: string) => string,
  maxChars: number,
): Promise<string | undefined> {
  const newest = newestSidecar(dir);
  const state = newest ? await tryLoadSummary(newest.file) : undefined;
  return state ? renderSummary(state, { maxChars, redact }) : undefined;
}

/** Inherited summaries whose text stays in memory. */
const MAX_INHERITED_TEXTS = 64;
const INHERITED_TEXTS = stateSlot("subagents:inherited", () => createVersionedCache<string>(MAX_INHERITED_TEXTS));

/**
 * The summary a forked child inherited from its parent (see {@link prepareSubagentContext}),
 * or undefined when there is none. Only subagent sessions are looked at (one `stat` each
 * call); the text is read once per version of the file.
 */
export async function readInheritedSummary(
  deps: Pick<LedgerServices, "sessions" | "state">,
  agentId: string,
  sessionKey: string,
): Promise<string | undefined> {
  if (!sessionKey.includes(":subagent:")) return undefined;
  const file = path.join(deps.sessions.dir(agentId, sessionKey), INHERITED_SUMMARY_FILE);
  const mtimeMs = mtimeOrMissing(file);
  if (mtimeMs < 0) return undefined;
  const inheritedTexts = deps.state.get(INHERITED_TEXTS);
  return inheritedTexts(file, mtimeMs, () => fsp.readFile(file, "utf8").catch(() => undefined));
}
