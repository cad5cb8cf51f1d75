import { promises as fsp, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXEC_ASK_ORDER, EXEC_SECURITY_ORDER, execPolicyVerdict, type ExecSettingsLayer } from "./exec-policy.js";
import { loadHostApprovalsReader } from "./host-exec-approvals.js";

// In the host project: it loads each installed host line's own combining functions and approvals reader.
const ROOT = path.resolve(import.meta.dirname, "../..");
const LINES: Record<string, string> = {
  "2026.4.24": path.join(ROOT, ".cache/openclaw-2026.4.24/node_modules/openclaw"),
  "2026.5.28": path.join(ROOT, ".cache/openclaw-2026.5.28/node_modules/openclaw"),
  "2026.6.11": path.join(ROOT, ".cache/openclaw-2026.6.11/node_modules/openclaw"),
  "2026.7.35": path.join(ROOT, ".cache/openclaw-2026.7.35/node_modules/openclaw"),
  "2026.8.2": path.join(ROOT, ".cache/openclaw-2026.8.2/node_modules/openclaw"),
  "2026.9.6": path.join(ROOT, "node_modules/openclaw"),
};

type Fn = (...args: never[]) => unknown;

/** Host functions exported under minified names, found by their own in the first dist module defining them. */
async function hostFunctions(pkg: string, names: readonly string[]): Promise<Record<string, Fn>> {
  const dist = path.join(pkg, "dist");
  for (const name of readdirSync(dist)) {
    if (!/\.m?js$/.test(name)) continue;
    const text = readFileSync(path.join(dist, name), "utf8");
    if (!names.every((n) => text.includes(`function ${n}(`))) continue;
    const mod = (await import(pathToFileURL(path.join(dist, name)).href)) as Record<string, unknown>;
    const fns = Object.values(mod).filter((v): v is Fn => typeof v === "function");
    const found = Object.fromEntries(names.map((n) => [n, fns.find((f) => f.name === n)]));
    if (names.every((n) => found[n])) return found as Record<string, Fn>;
  }
  throw new Error(`no ${names.join(", ")} exported from ${dist}`);
}

const SECURITIES = [undefined, ...EXEC_SECURITY_ORDER];
const ASKS = [undefined, ...EXEC_ASK_ORDER];

/** Every layer a setting can come from, each unset or at every level. */
function* layerCombos(): Generator<{
  global: ExecSettingsLayer;
  agent: ExecSettingsLayer;
  call: ExecSettingsLayer;
  approvals: ExecSettingsLayer;
}> {
  const layers: ExecSettingsLayer[] = [];
  for (const security of SECURITIES) for (const ask of ASKS) layers.push({ security, ask });
  for (const global of layers)
    for (const agent of layers)
      for (const ask of ASKS)
        for (const approvals of [{}, { security: "allowlist" }, { ask: "on-miss" }, { security: "full", ask: "off" }])
          yield { global, agent, call: { ask }, approvals };
}

describe.each(Object.entries(LINES))("the wrapper's guard against host %s's own combining", (_line, pkg) => {
  let stateDir: string;
  const saved = {
    HOME: process.env.HOME,
    OPENCLAW_HOME: process.env.OPENCLAW_HOME,
    OPENCLAW_STATE_DIR: process.env.OPENCLAW_STATE_DIR,
  };
  beforeAll(async () => {
    stateDir = await fsp.mkdtemp(path.join(os.tmpdir(), "cl-exec-approvals-"));
    process.env.HOME = stateDir;
    process.env.OPENCLAW_HOME = stateDir;
    process.env.OPENCLAW_STATE_DIR = path.join(stateDir, ".openclaw");
    await fsp.mkdir(process.env.OPENCLAW_STATE_DIR, { recursive: true });
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await fsp.rm(stateDir, { recursive: true, force: true });
  });

  it("wraps only where the host's minSecurity and maxAsk over every layer give full and off", async () => {
    const host = await hostFunctions(pkg, ["minSecurity", "maxAsk"]);
    const minSecurity = host.minSecurity as unknown as (a: string, b: string) => string;
    const maxAsk = host.maxAsk as unknown as (a: string, b: string) => string;
    let wrapped = 0;
    let checked = 0;
    for (const { global, agent, call, approvals } of layerCombos()) {
      const all = [global, agent, call, approvals];
      const security = all.reduce<string>((s, l) => (l.security ? minSecurity(s, String(l.security)) : s), "full");
      const ask = all.reduce<string>((a, l) => (l.ask ? maxAsk(a, String(l.ask)) : a), "off");
      const verdict = execPolicyVerdict({
        toolName: "exec",
        params: { command: "ls", ...call },
        config: { tools: { exec: global }, agents: { list: [{ id: "main", tools: { exec: agent } }] } },
        agentId: "main",
        approvals,
        platform: "linux",
      });
      expect(verdict.wrap, JSON.stringify({ global, agent, call, approvals })).toBe(
        security === "full" && ask === "off",
      );
      if (verdict.wrap) wrapped += 1;
      checked += 1;
    }
    expect(checked).toBe(4_096);
    expect(wrapped).toBeGreaterThan(0);
  });

  it("reads the host's own approvals store, and an asking store keeps the call plain", async () => {
    const entry = path.join(pkg, "dist", "index.js");
    const plain = (await loadHostApprovalsReader(entry))("main");
    expect(plain).not.toBe("unreadable");
    expect(
      execPolicyVerdict({ toolName: "exec", params: { command: "ls" }, config: {}, agentId: "main", approvals: plain })
        .wrap,
    ).toBe(true);
    // The store as the host writes it (a JSON file to 2026.7.35, SQLite state from 2026.8.2).
    const save = (await hostFunctions(pkg, ["saveExecApprovals"])).saveExecApprovals as unknown as (
      f: unknown,
    ) => unknown;
    for (const body of [
      { version: 1, defaults: { ask: "always" }, agents: {} },
      { version: 1, agents: { main: { security: "allowlist", allowlist: [{ pattern: "/bin/ls" }] } } },
    ]) {
      await save(body);
      const approvals = (await loadHostApprovalsReader(entry))("main");
      const verdict = execPolicyVerdict({
        toolName: "exec",
        params: { command: "ls", ask: "off" },
        config: {},
        agentId: "main",
        approvals,
      });
      expect(verdict.wrap, JSON.stringify({ body, approvals })).toBe(false);
    }
  });
});
