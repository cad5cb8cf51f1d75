import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INHERITED_SUMMARY_HEADING } from "../../src/subagents/subagent-context.js";
import { assistant, call, createTestEngine, result, user } from "../support/engine-harness.js";
import { summaryOf } from "../support/view-summary.js";

const PARENT = { sessionId: "s-parent", sessionKey: "agent:main:fork-parent" };
const CHILD = { sessionId: "s-child", sessionKey: "agent:main:subagent:fork-child" };

/** A parent conversation long enough that a small budget trims it (so it has a summary). */
function parentHistory(): unknown[] {
  const out: unknown[] = [];
  for (let t = 1; t <= 12; t++) {
    out.push(user(`Turn ${t}: we decided to keep invoices in table billing_${t}; check src/billing/step-${t}.ts.`));
    out.push(call(`call_fk${t}_aB-1`, "exec", { command: `npm test -- step-${t}` }));
    out.push(result(`call_fk${t}_aB-1`, "exec", `step ${t}: ${"ok ".repeat(400)}`));
    out.push(assistant(`Step ${t} passes; billing_${t} stays.`));
  }
  return out;
}

type View = { messages: unknown[]; estimatedTokens: number };

describe("forked subagent", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  beforeEach(async () => {
    t = await createTestEngine();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("a fork child's prompt carries the parent's summary, inside its budget; an isolated child's does not", async () => {
    const history = parentHistory();
    await t.engine.assemble({ ...PARENT, messages: history, tokenBudget: 3_000 });
    await t.engine.compact({ ...PARENT, force: true, tokenBudget: 3_000 });

    const prepared = await t.engine.prepareSubagentSpawn({
      parentSessionKey: PARENT.sessionKey,
      childSessionKey: CHILD.sessionKey,
      contextMode: "fork",
    });
    expect(prepared).toBeDefined();
    const child = (await t.engine.assemble({
      ...CHILD,
      messages: [user("Summarise the billing tables we kept.")],
      tokenBudget: 8_000,
    })) as View;
    expect(summaryOf(child)).toContain(INHERITED_SUMMARY_HEADING);
    expect(summaryOf(child)).toContain("[context-ledger summary]");
    expect(summaryOf(child)).toContain("billing_1");
    expect(child.estimatedTokens).toBeLessThanOrEqual(8_000);

    const isolated = { sessionId: "s-iso", sessionKey: "agent:main:subagent:iso-child" };
    await t.engine.prepareSubagentSpawn({
      parentSessionKey: PARENT.sessionKey,
      childSessionKey: isolated.sessionKey,
      contextMode: "isolated",
    });
    const alone = (await t.engine.assemble({
      ...isolated,
      messages: [user("Start fresh.")],
      tokenBudget: 8_000,
    })) as View;
    expect(summaryOf(alone)).not.toContain(INHERITED_SUMMARY_HEADING);
  });

  it("the inheritance ends with the child, and a failed spawn rolls it back", async () => {
    await t.engine.assemble({ ...PARENT, messages: parentHistory(), tokenBudget: 3_000 });
    await t.engine.compact({ ...PARENT, force: true, tokenBudget: 3_000 });
    const prepared = (await t.engine.prepareSubagentSpawn({
      parentSessionKey: PARENT.sessionKey,
      childSessionKey: CHILD.sessionKey,
      contextMode: "fork",
    })) as { rollback: () => Promise<void> };
    const before = (await t.engine.assemble({
      ...CHILD,
      messages: [user("Anything inherited?")],
      tokenBudget: 8_000,
    })) as View;
    expect(summaryOf(before)).toContain(INHERITED_SUMMARY_HEADING);
    await prepared.rollback();
    const rolledBack = (await t.engine.assemble({
      ...CHILD,
      messages: [user("Anything inherited?")],
      tokenBudget: 8_000,
    })) as View;
    expect(summaryOf(rolledBack)).not.toContain(INHERITED_SUMMARY_HEADING);

    await t.engine.prepareSubagentSpawn({
      parentSessionKey: PARENT.sessionKey,
      childSessionKey: CHILD.sessionKey,
      contextMode: "fork",
    });
    await t.engine.onSubagentEnded({ childSessionKey: CHILD.sessionKey, reason: "completed" });
    const ended = (await t.engine.assemble({ ...CHILD, messages: [user("And now?")], tokenBudget: 8_000 })) as View;
    expect(summaryOf(ended)).not.toContain(INHERITED_SUMMARY_HEADING);
  });
});
