import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createS3Backend } from "../../src/artifacts/s3-backend.js";
import { blobKey, metaKey } from "../../src/artifacts/store-keys.js";
import { runCli } from "../../src/cli/run-cli.js";
import type { SessionCleanReport } from "../../src/cli/sessions/session.js";
import { bloatedSession, makeTempState, runWith, writeHostSession } from "../cli/cli-fixtures.js";
import { useCephRgw } from "../support/s3-fixture.js";

const KEY = "agent:main:main";

describe("the CLI's commands on a store in a bucket", () => {
  const rgw = useCephRgw("cli commands");
  if (!rgw) return;

  /** A host state with one bloated session, the plugin configured on `store` (undefined: the file store). */
  async function hostState(label: string, store?: Record<string, unknown>) {
    const t = await makeTempState(label);
    const session = bloatedSession({ turns: 4, outputChars: 40_000 });
    await writeHostSession(t.state, "main", session);
    await fsp.writeFile(
      path.join(t.state, "agents", "main", "sessions", "sessions.json"),
      JSON.stringify({ [KEY]: { sessionId: session.sessionId } }),
    );
    const config = store ? { store } : {};
    await fsp.writeFile(
      path.join(t.state, "openclaw.json"),
      JSON.stringify({ plugins: { entries: { "context-ledger": { enabled: true, config } } } }),
    );
    const env = { ...t.env, KEY: rgw?.().rgw.accessKeyId, SECRET: rgw?.().rgw.secretAccessKey };
    return { ...t, env, cli: (...argv: string[]) => runWith(runCli, argv, env) };
  }

  it("session clean uploads every output it stubs, and export and grep then read them from the bucket alone", async () => {
    const prefix = `cli-${randomBytes(4).toString("hex")}`;
    const s3 = {
      backend: "s3",
      s3: {
        endpoint: rgw().rgw.endpoint,
        bucket: rgw().bucket,
        prefix,
        pathStyle: true,
        accessKeyIdEnv: "KEY",
        signingKeyEnv: "SECRET",
      },
    };
    const onFile = await hostState("cli-file");
    const onS3 = await hostState("cli-s3", s3);
    try {
      const clean = async (t: typeof onFile) => {
        const r = await t.cli("session", "clean", "--all", "--json");
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as SessionCleanReport;
      };
      const [fileClean, s3Clean] = [await clean(onFile), await clean(onS3)];
      const handlesOf = (r: SessionCleanReport) => r.sessions.flatMap((s) => s.payloads.map((p) => p.handle)).sort();
      expect(handlesOf(s3Clean)).toEqual(handlesOf(fileClean));
      expect(handlesOf(s3Clean).length).toBeGreaterThan(0);
      expect(s3Clean.totals).toEqual(fileClean.totals);

      // Every stubbed output is in the bucket before the command returned.
      const bucket = createS3Backend(rgw().options(`${prefix}/agents/main`));
      for (const h of handlesOf(s3Clean)) {
        expect(await bucket.head(blobKey(h.slice(-64))), h).toBeDefined();
        expect(await bucket.head(metaKey(h.slice(-64))), h).toBeDefined();
      }

      // The local store is gone (a disk replaced, or another gateway's outputs): the commands read the bucket.
      await fsp.rm(path.join(onS3.state, "context-ledger", "agents", "main", "artifacts"), { recursive: true });
      const exported = async (t: typeof onFile) => {
        const r = await t.cli("export", "--session", KEY, "--out", path.join(t.dir, "export"), "--json");
        expect(r.code, r.stderr).toBe(0);
        const index = JSON.parse(await fsp.readFile(path.join(t.dir, "export", "index.json"), "utf8")) as {
          files: Array<{ handle: string; bytes: number }>;
        };
        return index.files.map((f) => `${f.handle} ${f.bytes}`).sort();
      };
      expect(await exported(onS3)).toEqual(await exported(onFile));
      const grep = async (t: typeof onFile) => {
        const r = await t.cli("grep", "exit code 0", "--json");
        expect(r.code, r.stderr).toBe(0);
        const doc = JSON.parse(r.stdout) as { hits: Array<{ handle: string; matches: number }> };
        return doc.hits.map((h) => `${h.handle} ${h.matches}`).sort();
      };
      const grepOnFile = await grep(onFile);
      expect(grepOnFile.length).toBeGreaterThan(0);
      expect(await grep(onS3)).toEqual(grepOnFile);
    } finally {
      await fsp.rm(onFile.dir, { recursive: true, force: true });
      await fsp.rm(onS3.dir, { recursive: true, force: true });
    }
  }, 180_000);
});
