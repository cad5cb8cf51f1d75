/**
 * Would this `exec` call run as a plain POSIX shell command on the gateway host, with no approval
 * prompt? Only then may the full-exec capture wrap it: a sandboxed exec (`docker exec`, SSH), a node
 * host or Windows cannot run the wrapper or write the plugin's file, a PTY must keep its terminal, a
 * backgrounded command outlives the call, and an approval prompt would show the wrapper. Read from
 * `resolveExecDefaults` (`exec-defaults-*`) and `createExecTool` of 2026.4.24-2026.9.6: host `auto`
 * resolves to the sandbox when the agent has one, security defaults to `full` and ask to `off` on the
 * gateway host. The exec-approvals file can tighten both; it is not read here (the docs say what an
 * approval prompt then shows).
 */

/**
 * A lone `&` (not `&&`, `>&`, `&>`, `|&`, `<&`), `nohup`, `setsid` or `disown`: the command may leave a
 * process running. Conservative: an `&` inside quotes (a URL) passes the call through too.
 */
const DETACHES = /(^|[^&>|<])&(?![&>])|\b(nohup|setsid|disown)\b/;

/** Why a call is left as it is, or that it may be wrapped. */
export type ExecPolicyVerdict = { wrap: true; command: string } | { wrap: false; reason: string };

interface ExecSettings {
  host?: unknown;
  security?: unknown;
  ask?: unknown;
}

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

/**
 * The verdict for one call. `params` are the tool call's arguments, `toolKind` the host's tool kind
 * when it names one, `config` the host's config.
 */
export function execPolicyVerdict(options: {
  toolName: string;
  toolKind?: unknown;
  params: unknown;
  config: unknown;
  agentId: string;
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
  if (params.elevated === true) return { wrap: false, reason: "elevated" };
  // A process the command leaves running would hold the tee's pipe open and keep the call waiting for it.
  if (DETACHES.test(command)) return { wrap: false, reason: "starts a background process" };
  const globalExec = record(record(record(options.config).tools).exec) as ExecSettings;
  const agentExec = record(record(agentEntry(options.config, options.agentId).tools).exec) as ExecSettings;
  const pick = (key: keyof ExecSettings): unknown => params[key] ?? agentExec[key] ?? globalExec[key];
  const host = pick("host") ?? "auto";
  const sandbox = sandboxMode(options.config, options.agentId);
  if (host !== "gateway" && host !== "auto") return { wrap: false, reason: `exec host ${String(host)}` };
  if (host === "auto" && sandbox !== undefined && sandbox !== "off")
    return { wrap: false, reason: `sandbox mode ${String(sandbox)}` };
  const security = pick("security") ?? "full";
  const ask = pick("ask") ?? "off";
  if (security !== "full" || ask !== "off")
    return { wrap: false, reason: `approvals (security ${String(security)}, ask ${String(ask)})` };
  return { wrap: true, command };
}
