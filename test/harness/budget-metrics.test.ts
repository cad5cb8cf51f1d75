import { describe, expect, it } from "vitest";
import { cacheStability, fillStats, isPureExtension } from "../support/budget-metrics.js";

describe("budget metrics (shared by the replay bench and the host scenario)", () => {
  it("counts budget use only for calls whose history exceeds the budget", () => {
    const s = fillStats([
      { tokens: 10, budget: 100, historyTokens: 50 },
      { tokens: 70, budget: 100, historyTokens: 500 },
      { tokens: 90, budget: 100, historyTokens: 500 },
    ]);
    expect(s).toMatchObject({ calls: 2, worst: 0.7, p10: 0.7, p50: 0.7 });
    expect(fillStats([]).calls).toBe(0);
  });

  it("calls a prompt stable only when it starts with the previous one byte for byte (and the same system prompt when given)", () => {
    const a = { role: "user", content: "a" };
    const b = { role: "assistant", content: [{ type: "text", text: "b" }] };
    expect(isPureExtension([a], [a, b])).toBe(true);
    expect(isPureExtension([a, b], [a])).toBe(false);
    expect(isPureExtension([a, b], [{ ...a }, { role: "assistant", content: [{ type: "text", text: "B" }] }])).toBe(
      false,
    );
    expect(cacheStability([[a], [a, b], [b]])).toEqual({ compared: 2, stable: 1, share: 0.5 });
    expect(cacheStability([[a], [a, b]], ["s1", "s2"]).stable).toBe(0);
  });
});
