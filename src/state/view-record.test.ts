import { mkdir, rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/temp-dir.js";
import {
  MAX_VIEW_RECORDS,
  readViewRecords,
  createViewWriter,
  VIEW_RECORD_SCHEMA,
  viewRecordPath,
  type ViewRecord,
} from "./view-record.js";

const AGENT = "main";
const KEY = "agent:main:views";

function record(turn: number, total: number, sessionId = "s-1", budget = 32_000): ViewRecord {
  return {
    schema: VIEW_RECORD_SCHEMA,
    agentId: AGENT,
    sessionKey: KEY,
    sessionId,
    turn,
    at: new Date(0).toISOString(),
    budget: { tokens: budget, messageBudget: budget - 4_000 },
    estimatedTokens: total * 10,
    plan: { start: 0, reason: "stable", replanned: false, overBudget: false, total, kept: total, excluded: 0 },
    messages: [],
    offloaded: [],
    summary: null,
    debt: {
      at: new Date(0).toISOString(),
      rawHistoryTokens: 0,
      assembledTokens: 0,
      promptBudget: budget,
      debtTokens: 0,
      reducibleChars: 0,
    },
  };
}

const root = useTempDir("view-record-");

// A fresh writer per file keeps the batching state of these tests apart from any runtime.
const writer = createViewWriter();

describe("view records", () => {
  it("a burst of saves keeps every turn's fullest assembly, whichever order they arrive in", async () => {
    // Three assemblies per turn (the 9.6 pattern) for 6 turns, not awaited one by one: each turn's middle one saw most.
    const saves: Promise<void>[] = [];
    for (let turn = 1; turn <= 6; turn++) {
      for (const total of [turn * 10 - 2, turn * 10, turn * 10 - 5])
        saves.push(writer.save(root(), record(turn, total)));
    }
    await Promise.all(saves);
    const views = await readViewRecords(viewRecordPath(root(), AGENT, KEY));
    expect(views.map((v) => [v.turn, v.plan.total])).toEqual([1, 2, 3, 4, 5, 6].map((t) => [t, t * 10]));
  });

  it("keeps the turn's main assembly, not the host's in-turn ones with smaller budgets, and the turn's newest debt", async () => {
    // 2026.9.6: before the turn (history, budget after reserves), then the tool loop's calls on the handed-back
    // view: the first with the turn's largest budget, the later ones cut down to 1 (raised to the 512 floor).
    const turnOf = (turn: number) => [
      record(turn, 40, "s-1", 17_979),
      record(turn, 12, "s-1", 31_964),
      { ...record(turn, 12, "s-1", 512), debt: { ...record(turn, 12).debt, rawHistoryTokens: 33_000 + turn } },
    ];
    for (const r of turnOf(1)) await writer.save(root(), r);
    await Promise.all(turnOf(2).map((r) => writer.save(root(), r)));
    const views = await readViewRecords(viewRecordPath(root(), AGENT, KEY));
    expect(views.map((v) => [v.turn, v.budget.tokens, v.plan.total, v.debt.rawHistoryTokens])).toEqual([
      [1, 31_964, 12, 33_001],
      [2, 31_964, 12, 33_002],
    ]);
  });

  it("an assembly of no history (a probe) is not the turn's view, whatever its budget", async () => {
    await writer.save(root(), record(1, 9, "s-1", 31_000));
    await writer.save(root(), record(1, 0, "s-1", 32_000));
    const views = await readViewRecords(viewRecordPath(root(), AGENT, KEY));
    expect(views.map((v) => [v.budget.tokens, v.plan.total])).toEqual([[31_000, 9]]);
  });

  it("a save that arrives after the write started still lands, and only the newest turns are kept", async () => {
    const first = writer.save(root(), record(1, 10));
    const later = Array.from({ length: MAX_VIEW_RECORDS + 3 }, (_, i) => writer.save(root(), record(i + 2, 10)));
    await Promise.all([first, ...later]);
    const views = await readViewRecords(viewRecordPath(root(), AGENT, KEY));
    expect(views.map((v) => v.turn)).toEqual(Array.from({ length: MAX_VIEW_RECORDS }, (_, i) => i + 2 + 3));
  });

  it("a new conversation's record replaces the old conversation's", async () => {
    await writer.save(root(), record(1, 10, "old"));
    await Promise.all([writer.save(root(), record(2, 12, "old")), writer.save(root(), record(1, 3, "new"))]);
    const views = await readViewRecords(viewRecordPath(root(), AGENT, KEY));
    expect(views.map((v) => [v.sessionId, v.turn])).toEqual([["new", 1]]);
  });

  it("a failed write rejects its callers and the next save writes again", async () => {
    const file = viewRecordPath(root(), AGENT, KEY);
    // A directory where the file should be: the atomic rename fails.
    await mkdir(file, { recursive: true });
    await expect(writer.save(root(), record(1, 10))).rejects.toThrow();
    await rm(file, { recursive: true });
    await writer.save(root(), record(2, 10));
    expect((await readViewRecords(file)).map((v) => v.turn)).toEqual([2]);
  });
});
