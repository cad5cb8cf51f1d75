/**
 * The host's exec-approvals store for one agent, read through the host's own SDK module
 * (`loadExecApprovals`, `resolveExecApprovalsFromFile`: `plugin-sdk/exec-approvals-runtime` from
 * 2026.5.28, `plugin-sdk/infra-runtime` on 2026.4.24), in the `openclaw` package that holds the host's
 * entry script. The store is a JSON file on 4.24-8.2 and SQLite state on 9.6: only the host knows how
 * to read it.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { HostApprovals } from "./exec-policy.js";
import { packageRootNear } from "./detect-host.js";

interface ApprovalsRuntime {
  loadExecApprovals: () => unknown;
  resolveExecApprovalsFromFile: (params: {
    file: unknown;
    agentId?: string;
    overrides?: { security?: string; ask?: string };
  }) => { agent?: Record<string, unknown> };
}

/** The SDK modules that export the approvals readers, newest first. */
const SDK_MODULES = ["exec-approvals-runtime.js", "infra-runtime.js"];

/** A reader of the approvals store: the agent's layer, or "unreadable". */
export type HostApprovalsReader = (agentId: string) => HostApprovals;

/**
 * Loads the host's approvals SDK module once. The reader answers "unreadable" for every agent when the
 * module cannot be found or loaded, and for one call when the host's reader throws.
 */
export async function loadHostApprovalsReader(
  entry: string | undefined = process.argv[1],
): Promise<HostApprovalsReader> {
  let runtime: ApprovalsRuntime | undefined;
  try {
    const root = packageRootNear(entry);
    for (const name of SDK_MODULES) {
      const file = root ? path.join(root, "dist", "plugin-sdk", name) : undefined;
      if (!file || !existsSync(file)) continue;
      const mod = (await import(pathToFileURL(file).href)) as Partial<ApprovalsRuntime>;
      if (typeof mod.loadExecApprovals === "function" && typeof mod.resolveExecApprovalsFromFile === "function") {
        runtime = mod as ApprovalsRuntime;
        break;
      }
    }
  } catch {
    runtime = undefined;
  }
  return (agentId) => readApprovals(runtime, agentId);
}

function readApprovals(runtime: ApprovalsRuntime | undefined, agentId: string): HostApprovals {
  if (!runtime) return "unreadable";
  try {
    // The overrides are the host's own gateway defaults: they stand where the store says nothing.
    const agent = runtime.resolveExecApprovalsFromFile({
      file: runtime.loadExecApprovals(),
      agentId,
      overrides: { security: "full", ask: "off" },
    }).agent;
    if (!agent || typeof agent !== "object") return "unreadable";
    return { security: agent.security, ask: agent.ask, mode: agent.mode };
  } catch {
    return "unreadable";
  }
}
