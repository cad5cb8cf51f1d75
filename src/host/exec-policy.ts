/**
 * Would this `exec` call run as a plain POSIX shell command on the gateway host, with no approval
 * prompt and no allowlist match? Only then may the full-exec capture wrap it: a sandboxed exec
 * (`docker exec`, SSH), a node host or Windows cannot run the wrapper or write the plugin's file, a
 * PTY must keep its terminal, a backgrounded command outlives the call, and an approval prompt or an
 * allowlist match would see the wrapper instead of the user's command.
 *
 * The host combines its layers by the stricter (`minSecurity`, `maxAsk` in `exec-approvals-*` and
 * `bash-tools-*` of 2026.6.11-2026.9.6): the exec-approvals store against the config, the call's own
 * `ask` against both. The guard is at least as strict: it folds every layer it can see (config,
 * agent, the call's params, the host's approvals store) the same way, a `mode` layer by what the mode
 * means, and wraps only when the result is security `full` and ask `off`. A value it does not know, a
 * `strictInlineEval`, an auto-review mode, a command the host always asks about, or an approvals store
 * it could not read: not wrapped.
 */

/**
 * A lone `&` (not `&&`, `>&`, `&>`, `|&`, `<&`), `nohup`, `setsid` or `disown`: the command may leave a
 * process running. Conservative: an `&` inside quotes (a URL) passes the call through too.
 */
const DETACHES = /(^|[^&>|<])&(?![&>])|\b(nohup|setsid|disown)\b/;

/** A command naming `security.audit.suppressions`: the hosts ask about it whatever the policy. */
const ALWAYS_ASKED = /suppressions/i;

/** Why a call is left as it is, or that it may be wrapped. */
export type ExecPolicyVerdict = { wrap: true; command: string } | { wrap: false; reason: string };

/** The security levels of every host line, least permissive first (`minSecurity`'s order). */
export const EXEC_SECURITY_ORDER = ["deny", "allowlist", "full"] as const;
/** The ask levels of every host line, least asking first (`maxAsk`'s order). */
export const EXEC_ASK_ORDER = ["off", "on-miss", "always"] as const;

type Security = (typeof EXEC_SECURITY_ORDER)[number];
type Ask = (typeof EXEC_ASK_ORDER)[number];

/** The stricter of two security levels, as the hosts' `minSecurity`. */
export function minSecurity(a: Security, b: Security): Security {
  return EXEC_SECURITY_ORDER.indexOf(a) <= EXEC_SECURITY_ORDER.indexOf(b) ? a : b;
}

/** The more asking of two ask levels, as the hosts' `maxAsk`. */
export function maxAsk(a: Ask, b: Ask): Ask {
  return EXEC_ASK_ORDER.indexOf(a) >= EXEC_ASK_ORDER.indexOf(b) ? a : b;
}

/**
 * What a `mode` (2026.8.2 on: `tools.exec.mode`, the approvals' `mode`) stands for, as the hosts'
 * `resolveExecPolicyForMode` (`auto` adds a reviewer on top of `ask`).
 */
const MODE_POLICY: Record<string, { security: Security; ask: Ask }> = {
  deny: { security: "deny", ask: "off" },
  allowlist: { security: "allowlist", ask: "off" },
  ask: { security: "allowlist", ask: "on-miss" },
  auto: { security: "allowlist", ask: "on-miss" },
  full: { security: "full", ask: "off" },
};

/** One layer of exec settings: the config's, an agent's, a call's, the approvals store's. */
export interface ExecSettingsLayer {
  host?: unknown;
  security?: unknown;
  ask?: unknown;
  mode?: unknown;
  strictInlineEval?: unknown;
}

/** The host's exec-approvals store for one agent, as `resolveExecApprovalsFromFile(...).agent` gives it. */
export type HostApprovals = ExecSettingsLayer | "unreadable";

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function agentEntry(config: unknown, agentId: string): Record<string, unknown> {
  const list = record(record(config).agents).list;
  if (!Array.isArray(list)) return {};
  return record(list.find((a) => record(a).id === agentId));
}

function sandboxMode(config: unknown, agentId: string): unknown {
  const own = record(agentEntry(config, agentId).sandbox).mode;
  return own ?? record(record(record(record(config).agents).defaults).sandbox).mode;
}

const lower = (v: unknown): unknown => (typeof v === "string" ? v.trim().toLowerCase() : v);

/**
 * Security and ask of all layers folded by the stricter, or why they cannot be: a value the hosts do
 * not know is not guessed at.
 */
export function strictestPolicy(
  layers: readonly ExecSettingsLayer[],
): { security: Security; ask: Ask } | { unknown: string } {
  let security: Security = "full";
  let ask: Ask = "off";
  for (const layer of layers) {
    const mode = lower(layer.mode);
    if (mode !== undefined && mode !== null && mode !== "") {
      const policy = typeof mode === "string" ? MODE_POLICY[mode] : undefined;
      if (!policy) return { unknown: `exec mode ${String(layer.mode)}` };
      security = minSecurity(security, policy.security);
      ask = maxAsk(ask, policy.ask);
    }
    const sec = lower(layer.security);
    if (sec !== undefined && sec !== null) {
      if (!EXEC_SECURITY_ORDER.includes(sec as Security)) return { unknown: `exec security ${String(layer.security)}` };
      security = minSecurity(security, sec as Security);
    }
    const a = lower(layer.ask);
    if (a !== undefined && a !== null) {
      if (!EXEC_ASK_ORDER.includes(a as Ask)) return { unknown: `exec ask ${String(layer.ask)}` };
      ask = maxAsk(ask, a as Ask);
    }
  }
  return { security, ask };
}

/**
 * The verdict for one call. `params` are the tool call's arguments, `toolKind` the host's tool kind
 * when it names one, `config` the host's config, `approvals` the host's approvals store for the agent
 * (absent: the host has none, as in a test host).
 */
export function execPolicyVerdict(options: {
  toolName: string;
  toolKind?: unknown;
  params: unknown;
  config: unknown;
  agentId: string;
  approvals?: HostApprovals;
  platform?: NodeJS.Platform;
}): ExecPolicyVerdict {
  if (options.toolName !== "exec") return { wrap: false, reason: "not exec" };
  if ((options.platform ?? process.platform) === "win32") return { wrap: false, reason: "Windows shell" };
  if (options.toolKind !== undefined && options.toolKind !== "exec")
    return { wrap: false, reason: `tool kind ${String(options.toolKind)}` };
  const params = record(options.params);
  if ("cmd" in params) return { wrap: false, reason: "Codex-native call (cmd)" };
  const command = params.command;
  if (typeof command !== "string" || command.trim() === "") return { wrap: false, reason: "no command" };
  if (params.pty === true) return { wrap: false, reason: "pty" };
  if (params.background === true || params.yieldMs !== undefined) return { wrap: false, reason: "background" };
  if (params.elevated !== undefined && params.elevated !== false) return { wrap: false, reason: "elevated" };
  // A process the command leaves running would hold the tee's pipe open and keep the call waiting for it.
  if (DETACHES.test(command)) return { wrap: false, reason: "starts a background process" };
  if (ALWAYS_ASKED.test(command)) return { wrap: false, reason: "a command the host always asks about" };
  const globalExec = record(record(record(options.config).tools).exec) as ExecSettingsLayer;
  const agentExec = record(record(agentEntry(options.config, options.agentId).tools).exec) as ExecSettingsLayer;
  const host = params.host ?? agentExec.host ?? globalExec.host ?? "auto";
  const sandbox = sandboxMode(options.config, options.agentId);
  if (host !== "gateway" && host !== "auto") return { wrap: false, reason: `exec host ${String(host)}` };
  if (host === "auto" && sandbox !== undefined && sandbox !== "off")
    return { wrap: false, reason: `sandbox mode ${String(sandbox)}` };
  if (options.approvals === "unreadable") return { wrap: false, reason: "the host's exec approvals could not be read" };
  const callLayer: ExecSettingsLayer = { security: params.security, ask: params.ask };
  const layers = [globalExec, agentExec, callLayer, ...(options.approvals ? [options.approvals] : [])];
  if (layers.some((l) => l.strictInlineEval !== undefined && l.strictInlineEval !== false))
    return { wrap: false, reason: "strictInlineEval" };
  const policy = strictestPolicy(layers);
  if ("unknown" in policy) return { wrap: false, reason: policy.unknown };
  if (policy.security !== "full" || policy.ask !== "off")
    return { wrap: false, reason: `approvals (security ${policy.security}, ask ${policy.ask})` };
  return { wrap: true, command };
}
