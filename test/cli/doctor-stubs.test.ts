import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { runDoctorCommand, type DoctorReport } from "../../src/cli/doctor/doctor.js";
import { buildStub } from "../../src/results/stub.js";
import { artifactRoot } from "../../src/state/paths.js";
import { makeTempState, runWith, writeHostSqliteSession } from "./cli-fixtures.js";

const hostConfig = (slot: string) =>
  JSON.stringify({
    plugins: {
      slots: { contextEngine: slot },
      entries: { "context-ledger": { enabled: true, config: { agents: { ops: { enabled: false } } } } },
    },
    agents: { list: [{ id: "main" }, { id: "ops" }] },
  });

const stubLine = (handle: string) =>
  JSON.stringify({
    type: "message",
    id: "e1",
    parentId: null,
    message: {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "exec",
      content: [{ type: "text", text: buildStub({ handle, text: "out" }) }],
    },
  });

describe("doctor: sessions that still cite stubs where context-ledger is off", () => {
  let t: Awaited<ReturnType<typeof makeTempState>>;
  const doctor = async () => {
    const run = await runWith(runDoctorCommand, ["--json"], t.env);
    return (JSON.parse(run.stdout) as DoctorReport).findings.filter((f) => f.check === "stubs");
  };

  /** A JSONL session of `agentId` whose transcript holds one stub, keyed in the host's sessions.json. */
  async function sessionWithStub(agentId: string, sessionKey: string): Promise<string> {
    const store = createArtifactStore({ root: artifactRoot(path.join(t.state, "context-ledger"), agentId) });
    const { handle } = await store.stash(`output of ${agentId}\n`, { origin: { toolName: "exec" } });
    const dir = path.join(t.state, "agents", agentId, "sessions");
    await fsp.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${agentId}-s1.jsonl`);
    await fsp.writeFile(file, `${stubLine(handle)}\n`);
    await fsp.writeFile(
      path.join(dir, "sessions.json"),
      JSON.stringify({ [sessionKey]: { sessionId: `${agentId}-s1` } }),
    );
    return file;
  }

  beforeEach(async () => {
    t = await makeTempState("doctor-stubs");
  });
  afterEach(async () => fsp.rm(t.dir, { recursive: true, force: true }));

  it("warns for the disabled agent's session, naming the export, and not for the enabled one", async () => {
    await fsp.writeFile(path.join(t.state, "openclaw.json"), hostConfig("context-ledger"));
    const ops = await sessionWithStub("ops", "agent:ops:main");
    await sessionWithStub("main", "agent:main:main");
    const stubs = await doctor();
    expect(stubs).toEqual([
      {
        check: "stubs",
        level: "warn",
        message:
          "session agent:ops:main of agent ops still cites 1 offloaded output(s) while context-ledger is off for it (agents.ops.enabled is false in its config); they live only in the ledger's store: keep them with `context-ledger export --agent ops --session agent:ops:main --out DIR`",
        path: ops,
      },
    ]);
  });

  it("warns for every agent when the slot runs another engine, and reads 2026.9.x SQLite sessions", async () => {
    await fsp.writeFile(path.join(t.state, "openclaw.json"), hostConfig("legacy"));
    await sessionWithStub("main", "agent:main:main");
    const store = createArtifactStore({ root: artifactRoot(path.join(t.state, "context-ledger"), "ops") });
    const { handle } = await store.stash("ops output\n");
    await writeHostSqliteSession(t.state, "ops", {
      sessionKey: "agent:ops:cron",
      sessionId: "w1",
      events: [JSON.parse(stubLine(handle)) as unknown],
    });
    const stubs = await doctor();
    expect(stubs.map((f) => [f.level, f.message.split(" while ")[0]])).toEqual([
      ["warn", "session agent:main:main of agent main still cites 1 offloaded output(s)"],
      ["warn", "session agent:ops:cron of agent ops still cites 1 offloaded output(s)"],
    ]);
    expect(stubs[0]?.message).toContain('(plugins.slots.contextEngine is "legacy")');
    expect(stubs[1]?.message).toContain("`context-ledger export --agent ops --session agent:ops:cron --out DIR`");
  });

  it("says nothing when context-ledger runs for every agent that has stubs", async () => {
    await fsp.writeFile(
      path.join(t.state, "openclaw.json"),
      JSON.stringify({ plugins: { slots: { contextEngine: "context-ledger" } } }),
    );
    await sessionWithStub("main", "agent:main:main");
    expect(await doctor()).toEqual([]);
  });
});
