/**
 * Doctor from anywhere, on a real 2026.9.6 install: inside the host it
 * knows the host it runs in; with an `openclaw.json` the host rejects for an
 * unrelated key, the standalone command still runs and names what is wrong.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createHostEnv, type HostEnv } from "./host-env.js";
import { CURRENT_HOST, NODE_BINARY, REPO_ROOT } from "./host-install.js";
import { extractJson, runOpenclaw } from "./openclaw-cli.js";

interface Finding {
  check: string;
  level: string;
  message: string;
}

describe(`doctor on openclaw ${CURRENT_HOST}`, () => {
  let env: HostEnv | undefined;
  afterAll(async () => env?.cleanup());

  it("inside the host it checks that host; standalone it runs when the host rejects openclaw.json", async () => {
    env = await createHostEnv({ version: CURRENT_HOST, baseUrl: "http://127.0.0.1:9/v1", engine: "context-ledger" });
    const inHost = await runOpenclaw(env, ["context-ledger", "doctor", "--json"], { timeoutMs: 180_000 });
    const report = extractJson(inHost.stdout) as { findings: Finding[] };
    expect(report, inHost.stderr.slice(-2000)).toBeTruthy();
    const host = report.findings.find((f) => f.check === "host");
    expect(host?.message).toMatch(/^openclaw 2026\.9\.6 is supported .*found via running host\)$/);
    expect(report.findings.find((f) => f.check === "engine")).toMatchObject({ level: "ok" });
    expect(report.findings.find((f) => f.check === "command")?.message).toContain(
      path.join("dist", "src", "cli", "main.js"),
    );

    await env.updateConfig({ gateway: { notARealKey: true } });
    const refused = await runOpenclaw(env, ["context-ledger", "doctor"], { timeoutMs: 180_000 });
    expect(refused.code).not.toBe(0);
    const standalone = await promisify(execFile)(
      NODE_BINARY,
      [path.join(REPO_ROOT, "dist", "src", "cli", "main.js"), "doctor", "--json"],
      { env: env.env, cwd: env.root },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
    );
    const alone = JSON.parse(standalone.stdout) as { findings: Finding[] };
    expect(alone.findings.find((f) => f.check === "config" && f.level === "ok")?.message).toContain(
      "is valid against the schema",
    );
    expect(alone.findings.find((f) => f.check === "slot")).toMatchObject({ level: "ok" });
    console.log(
      `[doctor-96] in host: ${host?.message}; host refused the config with exit ${String(refused.code)}; standalone exit ${standalone.code}`,
    );
  }, 600_000);
});
