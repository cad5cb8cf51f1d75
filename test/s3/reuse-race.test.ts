import { randomBytes } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type OpenedStore, formatHandle, sha256Hex } from "../../src/artifacts/index.js";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { blobKey, metaKey } from "../../src/artifacts/format/store-keys.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { useSharedTempDir } from "../support/temp-dir.js";

/**
 * Repetitions: 4 in `npm test` (one batch of {@link PARALLEL}), 20 in `npm run test:s3-race` (the figure the operator
 * guide states).
 */
const REPETITIONS = Number(process.env.LEDGER_S3_RACE_REPETITIONS ?? 4);
const REUSES = 100;
const PARALLEL = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a reuse racing a gc of the shared bucket", () => {
  const rgw = useCephRgw("reuse race");
  const tmp = useSharedTempDir("ledger-s3-reuse-race-");
  if (!rgw) return;

  const gateway = (name: string, prefix: string): OpenedStore =>
    rgw().gateway(path.join(tmp(), name), rgw().settings(prefix));

  it(`loses none of ${REUSES} outputs re-stashed while another gateway's gc removes them, ${REPETITIONS} times`, async () => {
    // Every repetition gets its own prefix, set up together: one wait lets every blob age past both publications.
    const rounds = await Promise.all(
      Array.from({ length: REPETITIONS }, async (_, r) => {
        const prefix = `race-${r}-${randomBytes(4).toString("hex")}`;
        const a = gateway(`a-${r}`, prefix);
        const b = gateway(`b-${r}`, prefix);
        const texts = Array.from({ length: REUSES }, (_, i) => `output ${r}/${i} ${randomBytes(12).toString("hex")}\n`);
        for (const t of texts) await a.store.stash(t);
        await b.store.stash(`b's own ${prefix}`);
        expect((await a.spool?.drain())?.objects).toBe(0);
        expect((await b.spool?.drain())?.objects).toBe(0);
        return { prefix, a, b, texts };
      }),
    );
    await sleep(2_200);
    // B speaks (it cites nothing yet), so A's gc may remove every output it does not reuse.
    await Promise.all(rounds.map((r) => r.b.store.gc({ referenced: new Set(), dryRun: true })));
    await sleep(1_100);

    const race = async ({ prefix, a, b, texts }: (typeof rounds)[number]) => {
      const gc = a.store.gc({ maxAgeMs: 0, referenced: new Set() });
      const returned: string[] = [];
      for (const t of texts) returned.push((await b.store.stash(t)).handle);
      const report = await gc;
      expect((await b.spool?.drain())?.objects).toBe(0);
      const bucket = createS3Backend(rgw().options(`${prefix}/agents/main`));
      let lost = 0;
      for (const h of returned) {
        const hex = h.slice(-64);
        if (!(await bucket.head(blobKey(hex))) || !(await bucket.head(metaKey(hex)))) lost++;
      }
      await a.spool?.close();
      await b.spool?.close();
      return { removed: report.removed.length, lost };
    };
    // A few repetitions at a time: each races within its own prefix, and the suite stays short.
    const outcomes: Array<{ removed: number; lost: number }> = [];
    for (let i = 0; i < rounds.length; i += PARALLEL)
      outcomes.push(...(await Promise.all(rounds.slice(i, i + PARALLEL).map(race))));
    process.stderr.write(`reuse race: ${JSON.stringify(outcomes)}\n`);
    expect(outcomes.map((o) => o.lost)).toEqual(Array.from({ length: REPETITIONS }, () => 0));
    // The race was run, not dodged: some gc removed outputs B was re-stashing.
    expect(outcomes.some((o) => o.removed > 0)).toBe(true);

    // And a gateway on an empty disk reads every one of them back.
    const last = rounds.at(-1);
    if (!last) throw new Error("no round");
    const fresh = gateway("fresh", last.prefix);
    for (const t of last.texts)
      expect((await fresh.store.readText(formatHandle(sha256Hex(Buffer.from(t))))) === t).toBe(true);
    await fresh.spool?.close();
  }, 600_000);
});
