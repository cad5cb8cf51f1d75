/**
 * The opt-in full `exec` capture (`offload.fullExecOutput`). `exec` keeps only the last 200,000 chars
 * of an output on every host line; the one point where a plugin can keep more is `before_tool_call`,
 * whose returned `params` replace the call's (`mergeParamsWithApprovalOverrides`). This hook wraps an
 * eligible command ({@link execPolicyVerdict}) so its output is teed into a private file as it streams;
 * the capture then stores that file whole (up to `offload.maxCaptureBytes`) and removes it.
 */
import { fitsHostExecArgument, MAX_ARG_STRLEN, WIDEST_EXEC_ARGUMENT } from "../../host/exec-argument.js";
import { execPolicyVerdict } from "../../host/exec-policy.js";
import { HOST_LINES, hostLineOf, type ExecArgumentRule } from "../../host/host-lines.js";
import { loadHostApprovalsReader, type HostApprovalsReader } from "../../host/host-exec-approvals.js";
import type { LedgerServices } from "../../runtime/services.js";
import { agentOfCall, capturesAfterToolCall, pendingCapturesOf, type ToolCallContext } from "../capture-hook.js";
import { captureIndexOf, captureSessionOf } from "../capture-index.js";
import { recordTeedOutput } from "../capture-turn.js";
import { discardTeedOutput, takeTeedOutput } from "./take-teed.js";
import { createTeeFile, removeTeeFile, sweepTeeFiles, teeDirOf } from "./tee-files.js";
import { TEE_MAX_AGE_MS, teeRegistryOf } from "./tee-registry.js";
import { resolveFilterLauncher } from "./filter-launcher.js";
import { wrapCommand } from "./wrap-command.js";
import { stateSlot } from "../../runtime/state-slots.js";

/** What the full-exec hooks use: config, settings, the store, logs, the tee registry, captures. */
export type FullExecDeps = Pick<
  LedgerServices,
  "config" | "root" | "state" | "settings" | "store" | "logger" | "events" | "processWide"
>;

const SWEEP_EVERY_MS = 10 * 60 * 1000;
// When this process last swept the tee folder (shared by the plugin's module copies).
const TEE_SWEEP = stateSlot("capture:tee-sweep", () => ({ last: 0 }));

/** The hosts' default `exec` timeout (`tools.exec.timeoutSec`), in seconds. */
const DEFAULT_EXEC_TIMEOUT_SEC = 1800;
/** How long past its timeout a command sent to the background is still waited for, at most. */
const FOLLOW_GRACE_MS = 60_000;

/** How long a command is followed: its timeout, and as long again up to {@link FOLLOW_GRACE_MS}. */
function followMs(timeoutMs: number): number {
  return timeoutMs + Math.min(FOLLOW_GRACE_MS, timeoutMs);
}

/**
 * The call's timeout: `timeoutSeconds` (2026.9.6), `timeout` (earlier lines), else the config's, else
 * the hosts' default.
 */
function execTimeoutMs(params: unknown, config: unknown): number {
  const p = (params ?? {}) as Record<string, unknown>;
  const tools = ((config ?? {}) as { tools?: { exec?: { timeoutSec?: unknown } } }).tools;
  for (const v of [p.timeoutSeconds, p.timeout, tools?.exec?.timeoutSec])
    if (typeof v === "number" && Number.isFinite(v) && v > 0) return v * 1000;
  return DEFAULT_EXEC_TIMEOUT_SEC * 1000;
}

/** True when any agent has the opt-in on. */
function fullExecWanted(deps: FullExecDeps): boolean {
  return (
    deps.config.offload.fullExecOutput ||
    Object.values(deps.config.agents).some((a) => a.offload?.fullExecOutput === true)
  );
}

interface BeforeToolCallEvent {
  toolName?: unknown;
  toolKind?: unknown;
  toolCallId?: unknown;
  params?: unknown;
}

/** What the wrapper knows of its host. */
export interface FullExecHost {
  /** The host's config (exec host, sandbox, approvals). */
  config: unknown;
  /** True where `after_tool_call` stores the output (engine calls then wait for it). */
  trackPending: boolean;
  /** The host's exec-approvals store for an agent (absent: a host without one, as a test host). */
  approvals?: () => Promise<HostApprovalsReader>;
  /**
   * How the host line wraps a command into the shell's argument.
   * @default every line's text at once ({@link WIDEST_EXEC_ARGUMENT})
   */
  execArgument?: ExecArgumentRule;
}

interface HookApi {
  on?: (name: string, handler: (event: unknown, ctx: unknown) => unknown) => void;
  config?: unknown;
}

/**
 * The `before_tool_call` handler: the call's new params, or undefined to leave it alone. Never
 * throws (a throwing handler blocks the user's call on every line).
 */
export async function wrapForFullCapture(
  deps: FullExecDeps,
  options: FullExecHost,
  event: BeforeToolCallEvent,
  ctx: ToolCallContext & { toolCallId?: unknown },
): Promise<{ params: Record<string, unknown> } | undefined> {
  try {
    const agentId = agentOfCall(ctx);
    const toolCallId = typeof event.toolCallId === "string" ? event.toolCallId : ctx.toolCallId;
    if (!agentId || typeof toolCallId !== "string" || (!ctx.sessionKey && !ctx.sessionId)) return undefined;
    const settings = deps.settings(agentId);
    if (!settings.enabled || !settings.offload.capture || !settings.offload.fullExecOutput) return undefined;
    const verdict = execPolicyVerdict({
      toolName: String(event.toolName ?? ""),
      toolKind: event.toolKind,
      params: event.params,
      config: options.config,
      agentId,
      ...(options.approvals ? { approvals: (await options.approvals())(agentId) } : {}),
    });
    if (!verdict.wrap) {
      void deps.events.write({ op: "full-exec:passed", toolCallId, reason: verdict.reason });
      return undefined;
    }
    const launcher = await resolveFilterLauncher();
    if (!launcher.ok) {
      void deps.events.write({ op: "full-exec:passed", toolCallId, reason: launcher.reason });
      return undefined;
    }
    const registry = teeRegistryOf(deps);
    const dir = teeDirOf(deps.root);
    const file = await createTeeFile(dir);
    const command = wrapCommand({
      ...launcher.launcher,
      command: verdict.command,
      teeFile: file,
      capBytes: settings.offload.maxCaptureBytes,
    });
    const callEnv = (event.params as Record<string, unknown>).env;
    if (
      !fitsHostExecArgument(command, { rule: options.execArgument ?? WIDEST_EXEC_ARGUMENT, env: process.env, callEnv })
    ) {
      await removeTeeFile(file);
      const reason = `the host's shell argument would reach the ${MAX_ARG_STRLEN}-byte limit of one argument`;
      deps.logger.info(`full exec capture: call ${toolCallId} runs unwrapped: ${reason}`);
      void deps.events.write({ op: "full-exec:passed", toolCallId, reason });
      return undefined;
    }
    const stored = registry.add({
      file,
      toolCallId,
      agentId,
      ...(ctx.sessionKey ? { sessionKey: ctx.sessionKey } : {}),
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
      startedAt: Date.now(),
      followUntil: Date.now() + followMs(execTimeoutMs(event.params, options.config)),
    });
    // The host fires after_tool_call late (after the turn's own afterTurn, on 2026.9.6): engine calls of this
    // session wait for the stored output from now on, bounded, as for any capture.
    if (options.trackPending)
      pendingCapturesOf(deps).track({ sessionKey: ctx.sessionKey, sessionId: ctx.sessionId }, stored);
    const sweep = deps.processWide.get(TEE_SWEEP);
    if (Date.now() - sweep.last > SWEEP_EVERY_MS) {
      sweep.last = Date.now();
      void sweepTeeFiles(dir, registry.files(), TEE_MAX_AGE_MS);
    }
    void deps.events.write({
      op: "full-exec:wrapped",
      toolCallId,
      agentId,
      sessionKey: ctx.sessionKey ?? null,
      sessionId: ctx.sessionId ?? null,
    });
    return { params: { ...(event.params as Record<string, unknown>), command } };
  } catch (err) {
    deps.logger.warn(`full exec capture not set up for this call: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * The `after_tool_call` side (2026.6.11 on): stores the whole output of a wrapped call beside the host's copy
 * that `registerCapture` records, or removes the file of a call that gave no result. Never throws.
 */
export async function storeTeedCall(
  deps: FullExecDeps,
  event: { toolCallId?: unknown; toolName?: unknown; result?: unknown },
  ctx: ToolCallContext & { toolCallId?: unknown; toolName?: unknown },
): Promise<void> {
  try {
    const agentId = agentOfCall(ctx);
    const toolCallId = typeof event.toolCallId === "string" ? event.toolCallId : ctx.toolCallId;
    const toolName = typeof event.toolName === "string" ? event.toolName : ctx.toolName;
    if (!agentId || typeof toolCallId !== "string" || typeof toolName !== "string") return;
    const session = captureSessionOf(ctx);
    if (event.result === undefined) return await discardTeedOutput(deps, toolCallId, session);
    const index = captureIndexOf(deps, agentId);
    await takeTeedOutput(deps, { agentId, session, toolCallId, toolName }, (full) =>
      recordTeedOutput(index, { toolCallId, toolName, session }, full),
    );
  } catch (err) {
    deps.logger.warn(`full exec output not stored: ${(err as Error).message}`);
  }
}

/**
 * Registers the `before_tool_call` wrapper when some agent opted in, and where the host has it, the
 * `after_tool_call` store (elsewhere the turn-end capture stores the file). Never throws.
 */
export function registerFullExec(api: unknown, deps: FullExecDeps, hostVersion?: string): void {
  const hookApi = (api ?? {}) as HookApi;
  if (typeof hookApi.on !== "function" || !fullExecWanted(deps)) return;
  let approvals: Promise<HostApprovalsReader> | undefined;
  const line = hostLineOf(hostVersion);
  const host: FullExecHost = {
    execArgument: line ? HOST_LINES[line].execArgument : WIDEST_EXEC_ARGUMENT,
    config: hookApi.config,
    trackPending: capturesAfterToolCall(hostVersion),
    approvals: () => (approvals ??= loadHostApprovalsReader()),
  };
  try {
    hookApi.on("before_tool_call", (event, ctx) =>
      wrapForFullCapture(
        deps,
        host,
        (event ?? {}) as BeforeToolCallEvent,
        (ctx ?? {}) as ToolCallContext & { toolCallId?: unknown },
      ),
    );
    if (host.trackPending)
      hookApi.on("after_tool_call", (event, ctx) => {
        void storeTeedCall(deps, (event ?? {}) as Record<string, unknown>, (ctx ?? {}) as ToolCallContext);
      });
  } catch (err) {
    deps.logger.warn(`full exec capture not registered: ${(err as Error).message}`);
  }
}
