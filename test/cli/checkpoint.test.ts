import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import {
  CHECKPOINT_LIST_SCHEMA,
  CHECKPOINT_SHOW_SCHEMA,
  runCheckpointCommand,
  type CheckpointListing,
} from "../../src/cli/inspect/checkpoint.js";
import { artifactRoot, sessionRoot } from "../../src/state/paths.js";
import { createSessionState } from "../../src/state/session-state.js";
import { sessionStatePath, writeSessionState } from "../../src/state/session-file.js";
import { buildCheckpointPack, type CheckpointPack } from "../../src/summary/checkpoint.js";
import { createSummaryState } from "../../src/summary/summary-state.js";
import { makeTempState, runWith } from "./cli-fixtures.js";

describe("checkpoint list | show", () => {
  let env: NodeJS.ProcessEnv;
  let dir: string;
  let root: string;
  let packHandle: string;
  let outputHandle: string;

  beforeEach(async () => {
    let state: string;
    ({ env, dir, state } = await makeTempState("cp"));
    root = path.join(state, "context-ledger");
    const store = createArtifactStore({ root: artifactRoot(root, "main") });
    outputHandle = (await store.stash("big output\n".repeat(2_000), { kind: "tool-output" })).handle;
    const pack = buildCheckpointPack(createSummaryState("epoch-1"), {
      frontierIndex: 17,
      frontierFingerprint: "fp17",
      frontierEntryId: "e0017",
      artifactHandles: [outputHandle],
    });
    packHandle = (await store.stash(pack, { kind: "checkpoint", origin: { sessionKey: "agent:main:s1" } })).handle;
    const s = createSessionState("main", "agent:main:s1");
    s.checkpoints.push({ handle: packHandle, at: "2026-04-25T11:00:00.000Z", coveredCount: 17 });
    await writeSessionState(sessionStatePath(sessionRoot(root, "main", "agent:main:s1")), s);
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it("lists checkpoints from session state and the store", async () => {
    const run = await runWith(runCheckpointCommand, ["list", "--json"], env);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { schema: string; checkpoints: CheckpointListing[] };
    expect(doc.schema).toBe(CHECKPOINT_LIST_SCHEMA);
    expect(doc.checkpoints).toHaveLength(1);
    expect(doc.checkpoints[0]).toMatchObject({
      agentId: "main",
      sessionKey: "agent:main:s1",
      handle: packHandle,
      at: "2026-04-25T11:00:00.000Z",
      coveredCount: 17,
    });
    expect(doc.checkpoints[0]!.bytes).toBeGreaterThan(100);
    const human = await runWith(runCheckpointCommand, ["list"], env);
    expect(human.stdout).toMatch(/AGENT\s+SESSION\s+SEALED\s+COVERS\s+SIZE\s+HANDLE/);
    expect(human.stdout).toContain(packHandle);
    const none = JSON.parse(
      (await runWith(runCheckpointCommand, ["list", "--json", "--session", "other"], env)).stdout,
    ) as { checkpoints: unknown[] };
    expect(none.checkpoints).toHaveLength(0);
  });

  it("shows a pack pretty-printed and as JSON", async () => {
    const human = await runWith(runCheckpointCommand, ["show", packHandle], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("frontier   message 17 (entry e0017), fingerprint fp17");
    expect(human.stdout).toContain("epoch      epoch-1");
    expect(human.stdout).toContain(`artifacts  1\n    ${outputHandle}`);
    const json = await runWith(runCheckpointCommand, ["show", packHandle, "--json"], env);
    const doc = JSON.parse(json.stdout) as { schema: string; agentId: string; pack: CheckpointPack };
    expect(doc.schema).toBe(CHECKPOINT_SHOW_SCHEMA);
    expect(doc.agentId).toBe("main");
    expect(doc.pack.frontier).toEqual({ index: 17, fingerprint: "fp17", entryId: "e0017" });
    expect(doc.pack.artifacts).toEqual([outputHandle]);
  });

  it("maps failures to exit codes", async () => {
    expect((await runWith(runCheckpointCommand, ["show", "ledger:v1:sha256:XYZ"], env)).code).toBe(4);
    expect((await runWith(runCheckpointCommand, ["show", `ledger:v1:sha256:${"0".repeat(64)}`], env)).code).toBe(2);
    expect((await runWith(runCheckpointCommand, ["show", outputHandle], env)).code).toBe(4);
    const fake = (
      await createArtifactStore({ root: artifactRoot(root, "main") }).stash("{not json", { kind: "checkpoint" })
    ).handle;
    expect((await runWith(runCheckpointCommand, ["show", fake], env)).code).toBe(3);
    expect((await runWith(runCheckpointCommand, ["show"], env)).code).toBe(1);
    expect((await runWith(runCheckpointCommand, ["drop"], env)).code).toBe(1);
  });
});
