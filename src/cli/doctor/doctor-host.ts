import { promises as fsp } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { resolveAgentSettings } from "../../config/parse-config.js";
import type { DoctorFinding } from "./doctor-types.js";
import { readPackageJson } from "../core/package-json.js";
import {
  PLUGIN_ID,
  pluginEntry,
  resolveOpenclawState,
  selectedContextEngine,
  type OperatorContext,
} from "../core/operator-context.js";
import { shellWord } from "../core/shell-word.js";
import { isSupportedHostVersion, SUPPORTED_RANGE } from "../../host/supported-versions.js";

/** Checks the host config: file, plugin entry, plugin config against the schema, slot, per-agent toggle. */
export async function checkHostConfig(
  ctx: OperatorContext,
  env: NodeJS.ProcessEnv,
  openclawBin?: string,
): Promise<DoctorFinding[]> {
  const out: DoctorFinding[] = [];
  const where = ctx.configPath;
  if (ctx.hostConfigError)
    return [
      { check: "config", level: "error", message: `host config unreadable: ${ctx.hostConfigError}`, path: where },
    ];
  if (!ctx.hostConfig) {
    return [
      {
        check: "config",
        level: "warn",
        message: `no host config at ${where}: the plugin is not configured in the host (see docs/operator-guide.md, Install)`,
        path: where,
      },
    ];
  }
  const entry = pluginEntry(ctx.hostConfig);
  const plugins = ctx.hostConfig.plugins as Record<string, unknown> | undefined;
  if (!entry)
    out.push({
      check: "config",
      level: "warn",
      message: `plugins.entries["${PLUGIN_ID}"] is missing: defaults apply, and the host may not load the plugin`,
      path: where,
    });
  else if (entry.enabled === false)
    out.push({
      check: "config",
      level: "info",
      message: `context-ledger is off: plugins.entries["${PLUGIN_ID}"].enabled is false, so the host does not load the plugin. To switch it back on: \`${hostCommand(["config", "set", `plugins.entries.${PLUGIN_ID}.enabled`, "true"], ctx, env, openclawBin)}\``,
      path: where,
    });
  if (plugins?.enabled === false)
    out.push({
      check: "config",
      level: "error",
      message: "plugins.enabled is false: the host loads no plugins",
      path: where,
    });
  if (Array.isArray(plugins?.allow) && !plugins.allow.includes(PLUGIN_ID)) {
    out.push({ check: "config", level: "error", message: `plugins.allow does not list "${PLUGIN_ID}"`, path: where });
  }
  if (ctx.configError) out.push({ check: "config", level: "error", message: ctx.configError, path: where });
  else if (entry)
    out.push({
      check: "config",
      level: "ok",
      message: `plugins.entries["${PLUGIN_ID}"].config is valid against the schema (the rest of openclaw.json is the host's to check: \`openclaw config validate\`)`,
      path: where,
    });

  const slot = selectedContextEngine(ctx.hostConfig);
  if (slot === PLUGIN_ID)
    out.push({ check: "slot", level: "ok", message: `plugins.slots.contextEngine selects "${PLUGIN_ID}"` });
  else {
    // Installed but not selected is the documented way off, not a fault: say so, and how back.
    out.push({
      check: "slot",
      level: "info",
      message: `context-ledger is off: plugins.slots.contextEngine is ${slot ? `"${slot}"` : "unset"}, so the host runs ${slot ? `"${slot}"` : "its legacy engine"}. To switch it on: \`${hostCommand(["config", "set", "plugins.slots.contextEngine", PLUGIN_ID], ctx, env, openclawBin)}\` (then restart the gateway)`,
    });
  }

  if (ctx.configError) {
    // The host refuses the whole openclaw.json then: no agent runs context-ledger, whatever the defaults would enable.
    out.push({
      check: "agents",
      level: "warn",
      message:
        "enabled for: none while the plugin config is invalid: the host refuses such an openclaw.json (a gateway does not start; a running one keeps its previous config)",
    });
    return out;
  }
  const on: string[] = [];
  const off: string[] = [];
  for (const id of await knownAgentIds(ctx)) (resolveAgentSettings(ctx.config, id).enabled ? on : off).push(id);
  const hostOff = pluginOffReason(ctx);
  out.push({
    check: "agents",
    level: (on.length === 0 || hostOff) && !switchedOff(ctx.hostConfig) ? "warn" : "info",
    message: hostOff
      ? `enabled for: none while ${hostOff} (the plugin config would enable: ${on.join(", ") || "none"})`
      : `enabled for: ${on.join(", ") || "none"}${off.length ? `; disabled (pass-through) for: ${off.join(", ")}` : ""}${ctx.config.enabled ? "" : " (config `enabled: false` turns every agent off)"}`,
  });
  return out;
}

/** True when context-ledger is off by choice: the slot selects another engine, or its entry is disabled. */
function switchedOff(hostConfig: Record<string, unknown>): boolean {
  return selectedContextEngine(hostConfig) !== PLUGIN_ID || pluginEntry(hostConfig)?.enabled === false;
}

/**
 * The agents the host may run, sorted: `main`, `agents.list` of the host config, the plugin's per-agent overrides,
 * and every agent folder in the host's state dir.
 */
export async function knownAgentIds(ctx: OperatorContext): Promise<string[]> {
  const agentIds = new Set<string>(["main"]);
  const list = (ctx.hostConfig?.agents as Record<string, unknown> | undefined)?.list;
  if (Array.isArray(list))
    for (const a of list)
      if (a && typeof (a as { id?: unknown }).id === "string") agentIds.add((a as { id: string }).id);
  for (const id of Object.keys(ctx.config.agents)) agentIds.add(id);
  for (const name of await fsp.readdir(path.join(ctx.openclawState, "agents")).catch(() => [] as string[]))
    agentIds.add(name);
  return [...agentIds].sort();
}

/**
 * Why the host does not run context-ledger at all, from its config (entry or all plugins disabled, not allowed,
 * slot not selecting it); undefined when it does, or when there is no readable host config to tell.
 */
export function pluginOffReason(ctx: OperatorContext): string | undefined {
  if (!ctx.hostConfig) return undefined;
  const plugins = ctx.hostConfig.plugins as Record<string, unknown> | undefined;
  if (plugins?.enabled === false) return "plugins.enabled is false";
  if (pluginEntry(ctx.hostConfig)?.enabled === false) return `plugins.entries["${PLUGIN_ID}"].enabled is false`;
  if (Array.isArray(plugins?.allow) && !plugins.allow.includes(PLUGIN_ID))
    return `plugins.allow does not list "${PLUGIN_ID}"`;
  const slot = selectedContextEngine(ctx.hostConfig);
  if (slot !== PLUGIN_ID) return `plugins.slots.contextEngine is ${slot ? `"${slot}"` : "unset"}`;
  return undefined;
}

/** Options for {@link checkHostVersion}. */
export interface HostVersionOptions {
  /** `--openclaw-bin`: the host's executable or package folder. */
  openclawBin?: string;
  /** The host's entry script when running inside `openclaw context-ledger ...` (its `process.argv[1]`). */
  hostEntry?: string;
  /** Folder to resolve `openclaw` from. @default process.cwd() */
  cwd?: string;
  env: NodeJS.ProcessEnv;
}

/** Where the host package was found: which way, and the package. */
export interface FoundHost {
  file: string;
  version: string;
  via: "--openclaw-bin" | "running host" | "PATH" | "working folder";
}

/**
 * Finds the host package and checks its version against {@link SUPPORTED_RANGE}:
 * `--openclaw-bin` when given (a wrong one is an error of its own), else the
 * host this command runs inside, else `openclaw` on PATH, else the working folder.
 */
export async function checkHostVersion(options: HostVersionOptions): Promise<DoctorFinding & { found?: FoundHost }> {
  if (options.openclawBin) {
    const given = options.openclawBin;
    const exists = await fsp.stat(given).then(
      () => true,
      () => false,
    );
    const found = exists ? await packageAbove(await fsp.realpath(given)) : undefined;
    if (!found) {
      return {
        check: "host",
        level: "error",
        message: `--openclaw-bin: expected the openclaw executable or its package folder, got ${exists ? "a path inside no `openclaw` package" : "no such file"} (${given}); try \`--openclaw-bin "$(command -v openclaw)"\`, or leave the option out to use openclaw from PATH`,
        path: given,
      };
    }
    const host: FoundHost = { ...found, via: "--openclaw-bin" };
    return { ...verdict(host), found: host };
  }
  const found = await findHostPackage(options);
  if (!found) {
    return {
      check: "host",
      level: "warn",
      message: `no openclaw found (not running inside the host, no \`openclaw\` on PATH, none under the working folder); pass --openclaw-bin PATH to check the host version. Supported: ${SUPPORTED_RANGE}`,
    };
  }
  return { ...verdict(found), found };
}

function verdict(found: FoundHost): DoctorFinding {
  const ok = isSupportedHostVersion(found.version);
  return {
    check: "host",
    level: ok ? "ok" : "error",
    message: `openclaw ${found.version} ${ok ? "is supported" : "is NOT supported"} (supported: ${SUPPORTED_RANGE}; found via ${found.via})`,
    path: found.file,
  };
}

async function findHostPackage(options: HostVersionOptions): Promise<FoundHost | undefined> {
  const starts: { start: string; via: FoundHost["via"] }[] = [];
  if (options.hostEntry)
    starts.push({
      start: await fsp.realpath(options.hostEntry).catch(() => path.resolve(options.hostEntry as string)),
      via: "running host",
    });
  for (const dir of (options.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const real = await fsp.realpath(path.join(dir, "openclaw")).catch(() => undefined);
    if (real) starts.push({ start: real, via: "PATH" });
  }
  const cwd = options.cwd ?? process.cwd();
  try {
    starts.push({
      start: createRequire(path.join(cwd, "noop.js")).resolve("openclaw/package.json"),
      via: "working folder",
    });
  } catch {
    // Not resolvable from here: still report where it would be looked for.
    starts.push({ start: path.join(cwd, "node_modules", "openclaw"), via: "working folder" });
  }
  for (const { start, via } of starts) {
    const found = await packageAbove(start);
    if (found) return { ...found, via };
  }
  return undefined;
}

/** The nearest `openclaw` package.json at or above `start`. */
async function packageAbove(start: string): Promise<{ file: string; version: string } | undefined> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const file = path.basename(dir) === "package.json" ? dir : path.join(dir, "package.json");
    const pkg = await readPackageJson(file);
    if (pkg?.name === "openclaw" && typeof pkg.version === "string") return { file, version: pkg.version };
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The command that asks the host itself whether it accepts `openclaw.json`: the plugin checks only its own entry,
 * and the host rejects the whole file for any unknown key. Doctor prints it rather than running it: a shipped file
 * that starts processes is refused by the install scanners of 2026.4.24 and 2026.5.28. The state dir and config
 * file are named in the command when they are not the host's defaults, so it checks the file doctor read.
 */
export function hostValidateFinding(
  ctx: Pick<OperatorContext, "configPath" | "openclawState" | "hostConfig">,
  env: NodeJS.ProcessEnv,
  openclawBin?: string,
): DoctorFinding | undefined {
  if (!ctx.hostConfig) return undefined;
  const command = hostCommand(["config", "validate"], ctx, env, openclawBin);
  return {
    check: "host-config",
    level: "info",
    message: `doctor checks only the plugin's entry; the host refuses the whole openclaw.json for any key it does not know. To have the host check it: \`${command}\``,
    path: ctx.configPath,
  };
}

/**
 * An `openclaw ...` command line for the operator to paste in the shell doctor ran in: prefixed with
 * `OPENCLAW_STATE_DIR` when doctor looked at another state dir than that shell's host would (`--openclaw-state`),
 * and with the `--openclaw-bin` executable instead of `openclaw` when one named `openclaw` was given.
 */
export function hostCommand(
  args: readonly string[],
  ctx: Pick<OperatorContext, "openclawState">,
  env: NodeJS.ProcessEnv,
  openclawBin?: string,
): string {
  const prefix =
    ctx.openclawState === resolveOpenclawState({ env }) ? [] : [`OPENCLAW_STATE_DIR=${shellWord(ctx.openclawState)}`];
  const bin = openclawBin && path.basename(openclawBin) === "openclaw" ? shellWord(openclawBin) : "openclaw";
  return [...prefix, bin, ...args.map(shellWord)].join(" ");
}
