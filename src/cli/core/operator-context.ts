import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import JSON5 from "json5";
import { parseConfig } from "../../config/parse-config.js";
import type { LedgerConfig } from "../../config/schema.js";
import { describeValue, errorMessage, isNotFound, LedgerError } from "../../errors.js";
import { resolveLedgerRoot } from "../../state/paths.js";
import { stringFlag, type ParsedArgs } from "./args.js";

/** Plugin id and engine id as they appear in `openclaw.json`. */
export const PLUGIN_ID = "context-ledger";

/** Where the host keeps its state, and what its config says about this plugin. */
export interface OperatorContext {
  /** The host's state dir (`--openclaw-state`, `$OPENCLAW_STATE_DIR`, `~/.openclaw`). */
  openclawState: string;
  /** The host config file (`$OPENCLAW_CONFIG_PATH` or `<state>/openclaw.json`). */
  configPath: string;
  /** The parsed host config, undefined when the file is missing. */
  hostConfig: Record<string, unknown> | undefined;
  /** Why the host config could not be read, if it could not. */
  hostConfigError: string | undefined;
  /** The plugin config parsed by the schema (defaults when absent or invalid). */
  config: LedgerConfig;
  /** The schema's complaint about the plugin config, if any. */
  configError: string | undefined;
  /** The ledger root (`--state-dir`, config `stateDir`, `<openclaw state>/context-ledger`). */
  ledgerRoot: string;
}

/** Options for {@link loadOperatorContext}. */
export interface OperatorContextOptions {
  /** `--state-dir`: the ledger root itself. */
  stateDir?: string;
  /** `--openclaw-state`: the host's state dir. */
  openclawState?: string;
  env: NodeJS.ProcessEnv;
}

/** The host's state dir from the options and environment. */
export function resolveOpenclawState(options: Pick<OperatorContextOptions, "openclawState" | "env">): string {
  if (options.openclawState) return path.resolve(options.openclawState);
  const fromEnv = options.env.OPENCLAW_STATE_DIR?.trim();
  if (fromEnv) return path.resolve(fromEnv);
  return path.resolve(options.env.HOME?.trim() || os.homedir(), ".openclaw");
}

/** Reads the host config, the plugin config in it and the ledger root. Never throws for bad config. */
export async function loadOperatorContext(options: OperatorContextOptions): Promise<OperatorContext> {
  const openclawState = resolveOpenclawState(options);
  const configPath = options.env.OPENCLAW_CONFIG_PATH?.trim()
    ? path.resolve(options.env.OPENCLAW_CONFIG_PATH.trim())
    : path.join(openclawState, "openclaw.json");
  let hostConfig: Record<string, unknown> | undefined;
  let hostConfigError: string | undefined;
  try {
    hostConfig = await readHostConfig(configPath);
  } catch (err) {
    hostConfigError = errorMessage(err);
  }
  let config: LedgerConfig;
  let configError: string | undefined;
  try {
    config = parseConfig(pluginEntry(hostConfig)?.config ?? {});
  } catch (err) {
    configError = errorMessage(err);
    config = parseConfig({});
  }
  const ledgerRoot = resolveLedgerRoot({
    stateDir: options.stateDir ?? config.stateDir,
    env: { ...options.env, OPENCLAW_STATE_DIR: openclawState },
  });
  return { openclawState, configPath, hostConfig, hostConfigError, config, configError, ledgerRoot };
}

/** {@link loadOperatorContext} from a command's `--state-dir` and `--openclaw-state` flags. */
export function operatorContextOf(args: ParsedArgs, env: NodeJS.ProcessEnv): Promise<OperatorContext> {
  return loadOperatorContext({
    stateDir: stringFlag(args, "state-dir"),
    openclawState: stringFlag(args, "openclaw-state"),
    env,
  });
}

/** Reads `openclaw.json` (JSON5, as the host writes and reads it); undefined when missing. */
export async function readHostConfig(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw new LedgerError("io_failed", `Expected to read the host config \`${file}\`, got ${(err as Error).message}`, {
      cause: err,
    });
  }
  let value: unknown;
  try {
    value = JSON5.parse(text);
  } catch (err) {
    throw new LedgerError("config_invalid", `Expected JSON5 in \`${file}\`, got ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new LedgerError("config_invalid", `Expected an object in \`${file}\`, got ${describeValue(value)}`);
  }
  return value as Record<string, unknown>;
}

/** `plugins.entries["context-ledger"]` of a host config, if present. */
export function pluginEntry(
  hostConfig: Record<string, unknown> | undefined,
): { enabled?: unknown; config?: unknown } | undefined {
  const entries = (hostConfig?.plugins as Record<string, unknown> | undefined)?.entries as
    Record<string, unknown> | undefined;
  const entry = entries?.[PLUGIN_ID];
  return entry && typeof entry === "object" ? (entry as { enabled?: unknown; config?: unknown }) : undefined;
}

/** `plugins.slots.contextEngine` of a host config, if set. */
export function selectedContextEngine(hostConfig: Record<string, unknown> | undefined): string | undefined {
  const slots = (hostConfig?.plugins as Record<string, unknown> | undefined)?.slots as
    Record<string, unknown> | undefined;
  const v = slots?.contextEngine;
  return typeof v === "string" ? v : undefined;
}
