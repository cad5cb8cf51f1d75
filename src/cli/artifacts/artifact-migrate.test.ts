import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempState, runWith } from "../../../test/cli/cli-fixtures.js";
import { createArtifactStore } from "../../artifacts/index.js";
import { artifactRoot } from "../../state/paths.js";
import { runArtifactCommand } from "./artifact.js";

let t: Awaited<ReturnType<typeof makeTempState>>;
beforeEach(async () => {
  t = await makeTempState("migrate");
});
afterEach(async () => {
  await fsp.rm(t.dir, { recursive: true, force: true });
});

async function configure(store: Record<string, unknown>): Promise<void> {
  const config = { plugins: { entries: { "context-ledger": { config: { store } } } } };
  await fsp.writeFile(path.join(t.state, "openclaw.json"), JSON.stringify(config));
}

async function migrate(args: string[], env: NodeJS.ProcessEnv = t.env) {
  const r = await runWith(runArtifactCommand, ["migrate", ...args, "--json"], env);
  return { ...r, doc: JSON.parse(r.stdout) as { ok?: boolean; error?: { code: string; message: string } } };
}

describe("context-ledger artifact migrate: its clear refusals", () => {
  it("refuses without --to, and with both --agent and --all", async () => {
    expect((await migrate([])).doc.error).toMatchObject({ code: "input_invalid" });
    const both = await migrate(["--to", "s3", "--agent", "ops", "--all"]);
    expect(both.code).toBe(1);
    expect(both.doc.error?.message).toContain("--agent ID or --all");
  });

  it("names the missing store.s3 section when no bucket is configured, and writes nothing", async () => {
    const local = createArtifactStore({ root: artifactRoot(path.join(t.state, "context-ledger"), "main") });
    await local.stash("kept as it is");
    for (const to of ["s3", "file"]) {
      const r = await migrate(["--to", to]);
      expect(r.code).toBe(1);
      expect(r.doc.error).toMatchObject({ code: "config_invalid" });
      expect(r.doc.error?.message).toContain("store.s3");
    }
    expect((await local.stats()).count).toBe(1);
  });

  it("says the endpoint does not answer when the bucket is unreachable", async () => {
    await configure({ s3: { endpoint: "http://127.0.0.1:9", bucket: "ledger-test", pathStyle: true } });
    const env = { ...t.env, AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s" };
    const r = await migrate(["--to", "s3"], env);
    expect(r.code).toBe(5);
    expect(r.doc.error).toMatchObject({ code: "io_failed" });
    expect(r.doc.error?.message).toMatch(/http:\/\/127\.0\.0\.1:9 to answer.*reachable/);
  }, 30_000);

  it.skipIf(process.env.AWS_ACCESS_KEY_ID !== undefined || process.env.AWS_PROFILE !== undefined)(
    "names the environment variables when no credentials are found",
    async () => {
      await configure({
        s3: {
          endpoint: "http://127.0.0.1:9",
          bucket: "ledger-test",
          accessKeyIdEnv: "TEAM_S3_KEY",
          signingKeyEnv: "TEAM_S3_SECRET",
        },
      });
      const r = await migrate(["--to", "s3"]);
      expect(r.code).toBe(1);
      expect(r.doc.error).toMatchObject({ code: "config_invalid" });
      expect(r.doc.error?.message).toContain("`$TEAM_S3_KEY` and `$TEAM_S3_SECRET`");
    },
    30_000,
  );
});
