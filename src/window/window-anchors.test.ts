import { describe, expect, it } from "vitest";
import { stripThinking } from "../results/clear-tool-results.js";
import { toolNamesMatcher } from "../config/tool-names.js";
import { clearBoundary } from "./elastic-window.js";
import type { WindowPlan } from "./planner.js";
import { pickAnchor, recordWindow, replanTarget, type WindowAnchor } from "./window-anchors.js";

const anchor = (budget: number, extra: Partial<WindowAnchor> = {}): WindowAnchor => ({
  start: 0,
  anchor: "a",
  budget,
  total: 10,
  tokens: 100,
  clearBefore: -1,
  growth: 0,
  used: 1,
  ...extra,
});
const plan = (p: Partial<WindowPlan>): WindowPlan => ({
  kept: [0, 1],
  start: 0,
  resume: 0,
  tokens: 500,
  replanned: false,
  recounted: false,
  reason: "stable",
  excluded: [],
  newestUser: 0,
  overBudget: false,
  ...p,
});

describe("budget classes", () => {
  it("picks the nearest class within a factor of 1.25, and none for a budget far from every class", () => {
    const anchors = [anchor(15_000), anchor(29_000), anchor(5_000)];
    expect(pickAnchor(anchors, 29_900, 10)?.budget).toBe(29_000);
    expect(pickAnchor(anchors, 16_000, 10)?.budget).toBe(15_000);
    expect(pickAnchor(anchors, 5_300, 10)?.budget).toBe(5_000);
    expect(pickAnchor(anchors, 120_000, 10)).toBeUndefined();
    expect(pickAnchor([anchor(29_000, { total: 11 })], 29_000, 10)).toBeUndefined();
  });

  it("sizes a re-plan by cost from growth, never below the floor nor above the ceiling", () => {
    const base = { budget: 30_000, floor: 5_000, ceiling: 27_000, priceRatio: 10, minHeadroom: 1_000 };
    expect(replanTarget({ ...base, growth: 0 })).toBe(27_000);
    expect(replanTarget({ ...base, growth: 500 })).toBe(25_414);
    expect(replanTarget({ ...base, growth: 3_000 })).toBe(12_426);
    expect(replanTarget({ ...base, growth: 20_000 })).toBe(5_000);
    expect(replanTarget({ ...base, growth: 10, minHeadroom: 8_000 })).toBe(22_000);
  });

  it("keeps the window as deep as its uncached send, spread over the calls it lasts, costs no more than their cached reads", () => {
    for (const budget of [8_000, 13_000, 50_000, 100_000, 400_000])
      for (const growth of [200, 1_000, 5_000])
        for (const priceRatio of [4, 10, 12.5]) {
          const v = replanTarget({ budget, floor: 0, ceiling: budget, growth, priceRatio, minHeadroom: 0 });
          const writePerCall = (priceRatio * growth * v) / (budget - v);
          const readPerCall = (budget + v) / 2;
          expect(Math.abs(writePerCall - readPerCall) / readPerCall).toBeLessThan(0.001);
          // Dearer sends or faster growth cut deeper.
          const dearer = replanTarget({
            budget,
            floor: 0,
            ceiling: budget,
            growth,
            priceRatio: priceRatio * 2,
            minHeadroom: 0,
          });
          expect(dearer).toBeLessThan(v);
        }
  });

  it("averages growth over stable calls, keeps a class's budget, and evicts the least recently used class", () => {
    const prev = anchor(29_000, { growth: 100, tokens: 1_000 });
    const fp = () => "f";
    const next = recordWindow([prev], prev, {
      plan: plan({ tokens: 2_000 }),
      budget: 28_000,
      total: 20,
      clearBefore: -1,
      fingerprint: fp,
    });
    expect(next).toHaveLength(1);
    expect(next[0]).toMatchObject({ budget: 29_000, growth: 370, tokens: 2_000, total: 20 });
    const many = [1, 2, 3, 4].map((i) => anchor(1_000 * 4 ** i, { used: i }));
    const after = recordWindow(many, undefined, {
      plan: plan({ replanned: true }),
      budget: 7,
      total: 20,
      clearBefore: -1,
      fingerprint: fp,
    });
    expect(after.map((a) => a.budget).sort((a, b) => a - b)).toEqual([7, 16_000, 64_000, 256_000]);
  });
});

describe("clearing", () => {
  const r = (name: string) => ({ role: "toolResult", toolCallId: "x", toolName: name, content: [] });
  const u = { role: "user", content: "q" };
  it("clears everything older than the N-th newest clearable result, never the current turn", () => {
    const messages = [u, r("exec"), r("exec"), r("read"), r("exec"), u, r("exec")];
    const excluded = toolNamesMatcher(["read"]);
    expect(clearBoundary(messages, { keepToolResults: 2, excluded, newestUser: 5 })).toBe(3);
    expect(clearBoundary(messages, { keepToolResults: 0, excluded, newestUser: 5 })).toBe(5);
    expect(clearBoundary(messages, { keepToolResults: 4, excluded, newestUser: 5 })).toBe(-1);
  });

  it("drops thinking blocks but never empties a message", () => {
    const m = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "t" },
        { type: "text", text: "a" },
      ],
    };
    expect(stripThinking(m)).toEqual({ role: "assistant", content: [{ type: "text", text: "a" }] });
    const only = { role: "assistant", content: [{ type: "thinking", thinking: "t" }] };
    expect(stripThinking(only)).toBe(only);
  });
});
