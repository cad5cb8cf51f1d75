/**
 * Workaround until the shared rig handles it: on 2026.5.28-2026.7.x the gateway pairs
 * the CLI device silently with the scopes of its first call (`health`: read only) and
 * refuses the later scope upgrade for `chat.send` ("pairing required: device is asking
 * for more scopes than currently approved"). Granting the test device the CLI's
 * default operator scopes in the env's own `devices/paired.json` lets the scenario talk
 * to the gateway. Touches only the isolated temp state of the run.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import type { HostEnv } from "../host-env.js";

/** The CLI's default operator scopes (`CLI_DEFAULT_OPERATOR_SCOPES`). */
const CLI_SCOPES = ["operator.admin", "operator.read", "operator.write", "operator.approvals", "operator.pairing"];

/** Grants every paired CLI device of the env the CLI's default scopes; returns how many were widened. */
export async function grantCliScopes(env: HostEnv): Promise<number> {
  const file = path.join(env.stateDir, "devices", "paired.json");
  let store: Record<string, Record<string, unknown>>;
  try {
    store = JSON.parse(await fsp.readFile(file, "utf8")) as Record<string, Record<string, unknown>>;
  } catch {
    return 0;
  }
  let widened = 0;
  for (const device of Object.values(store)) {
    if (device.clientId !== "cli") continue;
    const scopes = Array.isArray(device.scopes) ? (device.scopes as string[]) : [];
    if (CLI_SCOPES.every((s) => scopes.includes(s))) continue;
    device.scopes = [...CLI_SCOPES];
    device.approvedScopes = [...CLI_SCOPES];
    const tokens = device.tokens as Record<string, { scopes?: string[] }> | undefined;
    for (const token of Object.values(tokens ?? {})) token.scopes = [...CLI_SCOPES];
    widened++;
  }
  if (widened > 0) await fsp.writeFile(file, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  return widened;
}
