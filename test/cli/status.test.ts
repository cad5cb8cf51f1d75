import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { runStatusCommand, STATUS_SCHEMA, type StatusReport } from "../../src/cli/inspect/status.js";
import { artifactRoot, sessionRoot } from "../../src/state/paths.js";
import { recordDebt } from "../../src/host/raw-tally.js";
import { createSessionState } from "../../src/state/session-state.js";
import { sessionStatePath, writeSessionState } from "../../src/state/session-file.js";
import { makeTempState, runWith } from "./cli-fixtures.js";

const BUDGET = 12_000;

async function writeSession(root: string, key: string, debts: number[], checkpoint?: string): Promise<void> {
  const agentId = key.split(":")[1] ?? "main";
  const s = createSessionState(agentId, key);
  s.sessionId = `${key}-id`;
  s.turns = debts.length;
  s.userTurns = debts.length;
  debts.forEach((debt, i) =>
    recordDebt(s, {
      at: new Date(Date.UTC(2026, 3, 25, 10, i)).toISOString(),
      rawHistoryTokens: BUDGET + debt,
      assembledTokens: 3_000 + i,
      promptBudget: BUDGET,
      debtTokens: debt,
      reducibleChars: debt * 4,
    }),
  );
  if (checkpoint) s.checkpoints.push({ handle: checkpoint, at: "2026-04-25T10:05:00.000Z", coveredCount: 17 });
  await writeSessionState(sessionStatePath(sessionRoot(root, agentId, key)), s);
}

describe("status", () => {
  let env: NodeJS.ProcessEnv;
  let dir: string;
  let root: string;
  let cp: string;

  beforeEach(async () => {
    let state: string;
    ({ env, dir, state } = await makeTempState("status"));
    root = path.join(state, "context-ledger");
    await fsp.writeFile(
      path.join(state, "openclaw.json"),
      JSON.stringify({
        plugins: {
          entries: {
            "context-ledger": { enabled: true, config: { agents: { ops: { limits: { maxStoreBytes: 1_048_576 } } } } },
          },
        },
      }),
    );
    const main = createArtifactStore({ root: artifactRoot(root, "main") });
    cp = (await main.stash('{"schema":"context-ledger.checkpoint.v1"}', { kind: "checkpoint" })).handle;
    await main.stash("x".repeat(10_000), { kind: "tool-output" });
    await writeSession(root, "agent:main:growing", [0, 1_000, 5_000, 9_000, 20_000], cp);
    await writeSession(root, "agent:main:paid", [8_000, 9_000, 2_000, 0]);
    const ops = createArtifactStore({ root: artifactRoot(root, "ops") });
    await ops.stash(randomBytes(960_000), { kind: "tool-output" });
    await writeSession(root, "agent:ops:quiet", []);
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it("reports budget, tokens, debt trend, artifacts and warnings as JSON", async () => {
    const run = await runWith(runStatusCommand, ["--json"], env);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as StatusReport;
    expect(report.schema).toBe(STATUS_SCHEMA);
    expect(report.agents.map((a) => a.agentId)).toEqual(["main", "ops"]);
    const [main, ops] = report.agents as [StatusReport["agents"][number], StatusReport["agents"][number]];
    expect(main.artifacts.count).toBe(2);
    expect(main.artifacts.bytes).toBe(10_000 + 41);
    expect(main.artifacts.maxStoreBytes).toBe(2 * 1024 ** 3);
    const growing = main.sessions.find((s) => s.sessionKey === "agent:main:growing")!;
    expect(growing).toMatchObject({
      turns: 5,
      promptBudget: BUDGET,
      assembledTokens: 3_004,
      rawHistoryTokens: 32_000,
      debtTokens: 20_000,
      reducibleChars: 80_000,
      compactions: 0,
    });
    expect(growing.debtTrend).toEqual({
      direction: "growing",
      growingStreak: 4,
      recent: [0, 1_000, 5_000, 9_000, 20_000],
      reclaimableTokens: 20_000,
      verdict: "growing",
      warn: true,
    });
    expect(growing.hostInTurnAssembles).toBeNull();
    expect(growing.lastCheckpoint).toEqual({ handle: cp, at: "2026-04-25T10:05:00.000Z", coveredCount: 17 });
    const paid = main.sessions.find((s) => s.sessionKey === "agent:main:paid")!;
    expect(paid.debtTrend).toMatchObject({ direction: "shrinking", growingStreak: 0, warn: false });
    expect(ops.artifacts.maxStoreBytes).toBe(1_048_576);
    expect(ops.artifacts.usedRatio).toBeGreaterThan(0.9);
    expect(ops.sessions[0]!.debtTrend.direction).toBe("unknown");
    expect(report.warnings.map((w) => [w.agentId, w.sessionKey ?? null, w.code])).toEqual([
      ["main", "agent:main:growing", "debt_growing"],
      ["ops", null, "store_near_limit"],
    ]);
  });

  it("prints an aligned table with warnings", async () => {
    const run = await runWith(runStatusCommand, ["--agent", "main"], env);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    const header = lines.find((l) => l.includes("SESSION"))!;
    const row = lines.find((l) => l.includes("agent:main:growing"))!;
    expect(header).toMatch(
      /SESSION\s+TURNS\s+OFFLOADED\s+COMPACTIONS\s+BUDGET\s+ASSEMBLED\s+RAW\s+DEBT\s+TREND\s+LAST CHECKPOINT/,
    );
    expect(row).toMatch(
      /agent:main:growing\s+5\s+0\s+0\s+12,000\s+3,004\s+32,000\s+20,000\s+growing x4\s+ledger:v1:sha256:/,
    );
    // Right-aligned numbers: the DEBT column ends at the same offset in every row.
    const debtEnd = header.indexOf("DEBT") + "DEBT".length;
    expect(row.slice(0, debtEnd).endsWith("20,000")).toBe(true);
    expect(run.stdout).toContain("Warnings:");
    expect(run.stdout).toContain("maintenance debt grew for 4 readings in a row");
    expect(run.stdout).not.toContain("ops");
  });

  it("filters by session and answers not found with exit 2", async () => {
    const one = JSON.parse(
      (await runWith(runStatusCommand, ["--session", "agent:main:paid", "--json"], env)).stdout,
    ) as StatusReport;
    expect(one.agents.flatMap((a) => a.sessions.map((s) => s.sessionKey))).toEqual(["agent:main:paid"]);
    expect((await runWith(runStatusCommand, ["--agent", "ghost"], env)).code).toBe(2);
    expect((await runWith(runStatusCommand, ["--session", "nope"], env)).code).toBe(2);
    expect((await runWith(runStatusCommand, ["--bogus"], env)).code).toBe(1);
  });

  it("hides host-internal sessions unless --all, details one session, lists known keys for an unknown one", async () => {
    await writeSession(root, "agent:main:internal-session-effects:abc", [1]);
    const plain = await runWith(runStatusCommand, [], env);
    expect(plain.stdout).not.toContain("internal-session-effects");
    expect(plain.stdout).toContain("1 host-internal session(s) hidden");
    expect((await runWith(runStatusCommand, ["--all"], env)).stdout).toContain("internal-session-effects");
    const detail = await runWith(runStatusCommand, ["--session", "agent:main:growing"], env);
    expect(detail.stdout).toMatch(/^Session agent:main:growing\n/);
    expect(detail.stdout).toContain(
      "debt             20,000 tokens after the turn's paydown, 20,000 before (trend growing x4)",
    );
    expect(detail.stdout).toContain("Debt readings:");
    const unknown = await runWith(runStatusCommand, ["--session", "agent:main:grwoing", "--json"], env);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error.message).toContain(
      "known sessions: agent:main:growing, agent:main:paid, agent:ops:quiet",
    );
  });

  it("on a SQLite host (2026.8.x-9.x) the debt advice does not send the operator to a command that does nothing", async () => {
    const sqlite = path.join(dir, "state", "agents", "main", "agent", "openclaw-agent.sqlite");
    await fsp.mkdir(path.dirname(sqlite), { recursive: true });
    await fsp.writeFile(sqlite, "SQLite format 3\0");
    const report = JSON.parse((await runWith(runStatusCommand, ["--json"], env)).stdout) as StatusReport;
    const w = report.warnings.find((x) => x.code === "debt_growing")!;
    expect(w.message).toContain(
      "`session clean` does not touch the transcript; maintain() pays tool outputs down on 2026.9.x (not on 2026.8.x)",
    );
    expect(w.message).not.toContain("run `context-ledger session clean");
  });

  it("marks an agent context-ledger is off for, and shows one without state as disabled, not unknown", async () => {
    await fsp.writeFile(
      path.join(path.dirname(root), "openclaw.json"),
      JSON.stringify({
        plugins: {
          entries: { "context-ledger": { config: { agents: { ops: { enabled: false }, qa: { enabled: false } } } } },
        },
      }),
    );
    const all = await runWith(runStatusCommand, [], env);
    expect(all.stdout).toMatch(/^Agent ops: .*\n {2}disabled: the plugin config turns context-ledger off for ops;/m);
    expect(all.stdout).not.toMatch(/disabled: .* for main;/);
    const report = JSON.parse((await runWith(runStatusCommand, ["--json"], env)).stdout) as StatusReport;
    expect(report.agents.map((a) => [a.agentId, a.enabled])).toEqual([
      ["main", true],
      ["ops", false],
    ]);
    const qa = await runWith(runStatusCommand, ["--agent", "qa"], env);
    expect(qa.code).toBe(0);
    expect(qa.stdout).toContain("disabled: the plugin config turns context-ledger off for qa");
    expect((await runWith(runStatusCommand, ["--agent", "nobody"], env)).code).toBe(2);
  });

  it("shows the turn's main prompt, not the host's smaller in-turn assembles, and labels those", async () => {
    const s = createSessionState("main", "agent:main:tool-loop");
    s.turns = 2;
    // 2026.9.6, one tool turn per committed turn: before the turn, the loop's first call (the turn's first
    // request), then the loop's call after the tool result with a budget cut to 1 (raised to the 512 floor).
    for (const turn of [1, 2])
      for (const [promptBudget, assembledTokens, raw] of [
        [17_979, 15_100, 36_000],
        [31_964, 15_300, 14_000],
        [512, 413, 14_000],
      ] as const)
        recordDebt(s, {
          at: new Date(Date.UTC(2026, 10, 27, 10, turn)).toISOString(),
          rawHistoryTokens: raw + turn,
          assembledTokens,
          promptBudget,
          debtTokens: Math.max(0, raw + turn - promptBudget),
          reducibleChars: 0,
          turn,
        });
    await writeSessionState(sessionStatePath(sessionRoot(root, "main", "agent:main:tool-loop")), s);
    const report = JSON.parse(
      (await runWith(runStatusCommand, ["--session", "agent:main:tool-loop", "--json"], env)).stdout,
    ) as StatusReport;
    expect(report.agents[0]?.sessions[0]).toMatchObject({
      promptBudget: 31_964,
      assembledTokens: 15_300,
      rawHistoryTokens: 36_002,
      debtTokens: 36_002 - 31_964,
      hostInTurnAssembles: { count: 2, smallestBudget: 512 },
    });
    // One reading per turn: the trend compares turns, not a turn's own assembles.
    expect(report.agents[0]?.sessions[0]?.debtHistory.map((d) => d.promptBudget)).toEqual([31_964, 31_964]);
    const detail = (await runWith(runStatusCommand, ["--session", "agent:main:tool-loop"], env)).stdout;
    expect(detail).toContain("prompt budget    31,964 tokens (the last turn's main prompt)");
    expect(detail).toContain(
      "other assembles  2 by the host for the turn (budgets down to 512), not the turn's prompt",
    );
  });

  it("says nothing to reclaim, and gives no advice, for debt that is no tool output a clean could free", async () => {
    const s = createSessionState("main", "agent:main:answers");
    s.turns = 4;
    [10_000, 20_000, 30_000, 32_532].forEach((debt, i) =>
      recordDebt(s, {
        at: new Date(Date.UTC(2026, 3, 25, 11, i)).toISOString(),
        rawHistoryTokens: BUDGET + debt,
        assembledTokens: 11_000,
        promptBudget: BUDGET,
        debtTokens: debt,
        reducibleChars: 0,
        turn: i + 1,
      }),
    );
    await writeSessionState(sessionStatePath(sessionRoot(root, "main", "agent:main:answers")), s);
    const run = await runWith(runStatusCommand, ["--agent", "main"], env);
    const row = run.stdout.split("\n").find((l) => l.includes("agent:main:answers"))!;
    expect(row).toMatch(/32,532\s+nothing to reclaim\s+-/);
    expect(row).not.toContain("growing");
    const report = JSON.parse((await runWith(runStatusCommand, ["--json"], env)).stdout) as StatusReport;
    expect(report.warnings.filter((w) => w.sessionKey === "agent:main:answers")).toEqual([]);
  });
});
