import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { createCliIo } from "../support/cli-io.js";
import { describe, expect, it } from "vitest";
import { runArtifactCommand } from "../../src/cli/artifacts/artifact.js";
import { artifactRoot } from "../../src/state/paths.js";
import { useCephRgw } from "../support/s3-fixture.js";
import { useSharedTempDir } from "../support/temp-dir.js";

describe("artifact gc on a bucket two gateways share, from the command line", () => {
  const rgw = useCephRgw("shared gc cli");
  const tmp = useSharedTempDir("ledger-s3-shared-gc-cli-");
  if (!rgw) return;

  /** One gateway: its own OpenClaw state (config naming the shared bucket) and its own ledger state. */
  const gatewayCli = async (name: string, prefix: string) => {
    const oc = path.join(tmp(), name, "oc");
    const state = path.join(tmp(), name, "ledger");
    await fsp.mkdir(oc, { recursive: true });
    const s3 = { endpoint: rgw().rgw.endpoint, bucket: rgw().bucket, prefix, pathStyle: true };
    const config = { plugins: { entries: { "context-ledger": { config: { store: { backend: "s3", s3 } } } } } };
    await fsp.writeFile(path.join(oc, "openclaw.json"), JSON.stringify(config));
    const env = {
      HOME: path.join(tmp(), name, "home"),
      OPENCLAW_STATE_DIR: oc,
      AWS_ACCESS_KEY_ID: rgw().rgw.accessKeyId,
      AWS_SECRET_ACCESS_KEY: rgw().rgw.secretAccessKey,
    };
    const run = async (argv: string[], stdin = "") => {
      const c = createCliIo(env, stdin);
      const code = await runArtifactCommand([...argv, "--state-dir", state], c.io);
      return { code, out: c.stdout(), err: c.stderr() };
    };
    const id = async () => (await fsp.readFile(path.join(artifactRoot(state, "main"), "gateway-id"), "utf8")).trim();
    return { run, id };
  };

  it("names the gateway that never published, and stops waiting for it once it is retired", async () => {
    const prefix = `cli-${randomBytes(4).toString("hex")}`;
    const one = await gatewayCli("one", prefix);
    const two = await gatewayCli("two", prefix);
    expect((await one.run(["stash"], "one's output\n")).code).toBe(0);
    expect((await two.run(["stash"], "two's output\n")).code).toBe(0);
    const idTwo = await two.id();

    const blocked = await one.run(["gc", "--max-age", "0s"]);
    expect(blocked.code).toBe(0);
    expect(blocked.err).toContain(`gateway ${idTwo} never published its references`);
    expect(blocked.err).toContain(`--retire-gateway ${idTwo}`);
    expect(blocked.out).toMatch(/removed 0 artifacts/);

    const retired = await one.run(["gc", "--max-age", "0s", "--retire-gateway", idTwo, "--json"]);
    expect(retired.err).toContain(`retired gateway ${idTwo}`);
    const receipt = JSON.parse(retired.out) as { sharedBucket: { gatewayId: string; blockedBy: unknown[] } };
    expect(receipt.sharedBucket.gatewayId).toBe(await one.id());
    expect(receipt.sharedBucket.blockedBy).toEqual([]);
  });
});
