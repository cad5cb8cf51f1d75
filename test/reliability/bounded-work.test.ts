import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonParseMemo } from "../../src/artifacts/selectors/json-bounded.js";
import { selectSlice } from "../../src/artifacts/index.js";
import { compileSafeRegex } from "../../src/safe-regex.js";
import { DEFAULT_PREVIEW_CHARS } from "../../src/results/preview.js";
import { planSchemaStrip, type StripPlan } from "../../src/results/strip-schema.js";
import { summarizeOutput } from "../../src/results/summarize-output.js";
import { ARTIFACT_STUB_PREFIX, stripLedgerBlocks } from "../../src/summary/extract-facts.js";
import {
  adversarialInputs,
  adversarialToolOutputs,
  BUILT_IN_SCANS,
  CATASTROPHIC_GREP,
} from "../support/adversarial-inputs.js";
import { call, createTestEngine, result, user } from "../support/engine-harness.js";

// How long these take is measured by `npm run bench` (section `bounded`, bench/bounded-work.ts), not here: a scan
// gone quadratic on 1 MB would not end at all, and one gone merely slow shows in the bench's figures.

const FORMATS: ReadonlySet<unknown> = new Set(["json", "html", "xml", "pdf-text", "log", "text"]);
const isString = (v: unknown): v is string => typeof v === "string";
const clipped = (list: unknown, max: number) =>
  Array.isArray(list) && list.every((s) => isString(s) && s.length <= max);

/** What each built-in scan must return on any input: a result of its shape, inside its own bounds. */
const WELL_FORMED: Record<string, (out: unknown, text: string) => boolean> = {
  redactSecrets: isString,
  summarizeOutput: (out, text) =>
    isString(out) && out.split("\n").length <= 3 && out.includes(`${text.length.toLocaleString("en-US")} chars`),
  detectFormat: (out) => FORMATS.has(out),
  buildPreview: (out) => isString(out) && out.length <= DEFAULT_PREVIEW_CHARS,
  planSchemaStrip: (out, text) => isString((out as StripPlan).text) && (out as StripPlan).text.length <= text.length,
  stripLedgerBlocks: (out, text) => isString(out) && out.length <= text.length,
  "extract-facts": (out) => {
    const f = out as Record<string, unknown>;
    return (
      isString(f.first) &&
      f.first.length <= 200 &&
      clipped(f.decisions, 3) &&
      clipped(f.errors, 3) &&
      clipped(f.facts, 3) &&
      Array.isArray(f.errorLines) &&
      f.errorLines.length <= 3 &&
      clipped(f.errorLines, 200) &&
      (f.exitCode === undefined || Number.isInteger(f.exitCode))
    );
  },
};

describe("bounded work on any input", () => {
  it("every built-in scan finishes on 1 MB adversarial inputs with a result of its shape, inside its bounds", () => {
    const malformed: string[] = [];
    let runs = 0;
    for (const [kind, text] of adversarialInputs()) {
      for (const [name, run] of BUILT_IN_SCANS) {
        runs++;
        if (!WELL_FORMED[name]?.(run(text), text)) malformed.push(`${name} on ${kind}`);
      }
    }
    expect(runs).toBe(832 * BUILT_IN_SCANS.length);
    expect(malformed).toEqual([]);
  });

  it("stripLedgerBlocks: the linear scan cuts exactly what the reference regex cuts (property)", () => {
    const REFERENCE = /\[context-ledger (summary|checkpoint)\b[^\]]*\][\s\S]*?(?:\[\/context-ledger \1\]|$)/g;
    const piece = fc.constantFrom(
      "[context-ledger summary",
      "[context-ledger checkpoint",
      "[context-ledger summaryX",
      "]",
      "[/context-ledger summary]",
      "[/context-ledger checkpoint]",
      " ",
      "x",
      "\n",
      "[context-ledger artifact",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (list) => {
        const text = `lead ${list.join("")}`;
        expect(stripLedgerBlocks(text)).toBe(text.replace(REFERENCE, ""));
      }),
      { numRuns: 2_000 },
    );
  });

  it("summarizeOutput: `exit code` before 120 KB of spaces is no exit code; a code after a short separator is", () => {
    expect(summarizeOutput(`exit code${" ".repeat(120_000)}x`)).toBe("120,010 chars · 1 lines · text");
    expect(summarizeOutput("build failed\nexit code: 2\n")).toMatch(/exit code 2/);
    expect(summarizeOutput("process exited with status   = 17")).toMatch(/exit code 17/);
  });

  it("planSchemaStrip: 5 KB of JSON nested 2,500 deep does not overflow the stack", () => {
    const deep = `${"[".repeat(2_500)}${"]".repeat(2_500)}`;
    expect(() => planSchemaStrip(deep)).not.toThrow();
    const wrapped = JSON.stringify({
      schema: { type: "object", properties: { a: { type: "string", description: "x".repeat(200) } } },
      data: JSON.parse(deep),
    });
    const plan = planSchemaStrip(wrapped);
    expect(plan.text.length).toBeGreaterThan(0);
    const objects = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    expect(() => planSchemaStrip(objects)).not.toThrow();
  });

  it("planSchemaStrip moves a tool schema and a large field out, and keeps the rest as it is", () => {
    const schema = {
      type: "object",
      properties: { q: { type: "string", description: "the query ".repeat(30) } },
      required: ["q"],
    };
    const doc = {
      tools: [{ name: "search", inputSchema: schema }],
      big: "z".repeat(12_000),
      keep: [1, 2, { ok: true }],
    };
    const plan = planSchemaStrip(JSON.stringify(doc));
    expect(plan.parts.map((p) => [p.path, p.reason, p.format])).toEqual([
      ["$.tools[0].inputSchema", "schema", "json"],
      ["$.big", "large-field", "text"],
    ]);
    const back = JSON.parse(plan.text) as Record<string, unknown>;
    expect(back.keep).toEqual([1, 2, { ok: true }]);
  });

  it("assemble keeps working after a tool returns 5 KB of JSON nested 2,500 deep", async () => {
    const t = await createTestEngine({ offload: { maxChars: 2_000, structuredMaxChars: 1_000 } });
    const s = { sessionId: "s1", sessionKey: "agent:main:deep" };
    const deep = `${"[".repeat(2_500)}${"]".repeat(2_500)}`;
    const messages = [
      user("dump it"),
      call("call_aB_1-x", "exec"),
      result("call_aB_1-x", "exec", deep),
      user("and now?"),
    ];
    for (let turn = 0; turn < 2; turn++) {
      const out = (await t.engine.assemble({ ...s, messages, tokenBudget: 50_000 })) as { messages: unknown[] };
      expect(out.messages.length).toBe(messages.length);
    }
    expect(t.logs.filter((l) => l.startsWith("error"))).toEqual([]);
    await t.cleanup();
  });

  it("grep: stacked bounded quantifiers are interrupted inside the first line at the time limit, and say so", () => {
    const { pattern, text } = CATASTROPHIC_GREP;
    expect(() => compileSafeRegex(pattern)).not.toThrow();
    const slice = selectSlice(text, { kind: "grep", pattern }, { maxChars: 8_000, grepTimeoutMs: 300 });
    expect(slice.truncated).toBe(true);
    expect(slice.text).toBe("");
    expect(slice.notice).toBe(
      `grep /${pattern}/: 0+ matching lines of 3, 0 shown; scan stopped at line 0 after the 300 ms limit`,
    );
  });

  it("grep: an ordinary scan finds every match", () => {
    const text = Array.from({ length: 10_000 }, (_, i) => (i % 1000 === 7 ? `ERROR at ${i}` : `ok ${i}`)).join("\n");
    const r = selectSlice(text, { kind: "grep", pattern: "ERROR" }, { maxChars: 8_000 });
    expect(r.notice).toBe("grep /ERROR/: 10 matching lines of 10,000, 10 shown");
    expect(r.text.split("\n")[0]).toBe("8:ERROR at 7");
  });

  it("json selector: an artifact over the parse cap is refused with a clear error, the parse is cached, output is bounded", () => {
    const huge = `{"k":"${"x".repeat(17_000_000)}"}`;
    let caught: unknown;
    try {
      selectSlice(huge, { kind: "json", path: "$.k" }, { maxChars: 100 });
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string })?.code).toBe("selector_invalid");
    expect((caught as Error).message).toMatch(
      /at most 16,000,000 chars for a `json` selector, got 17,000,008; use grep or range/,
    );

    const keys = Object.fromEntries(
      Array.from({ length: 200_000 }, (_, i) => [`key${i}`, { n: i, s: "v".repeat(20) }]),
    );
    const text = JSON.stringify(keys);
    // The store keeps one memo per owner: the next path on the same artifact walks the same parse.
    const memo: JsonParseMemo = {};
    const first = selectSlice(text, { kind: "json", path: "$" }, { maxChars: 2_000, jsonMemo: memo });
    expect(first.text.length).toBeLessThanOrEqual(2_000);
    expect(first.truncated).toBe(true);
    expect(first.notice).toMatch(/^\$: 1 value; chars 1-[\d,]+ of more than [\d,]+ shown/);
    const parsed = memo.last?.root;
    expect(parsed).toBeTypeOf("object");
    const second = selectSlice(text, { kind: "json", path: "$.key199999.n" }, { maxChars: 2_000, jsonMemo: memo });
    expect(second.text).toBe("199999");
    expect(memo.last?.root).toBe(parsed);
  });

  it("assemble offloads a 1 MB adversarial tool output of each kind and keeps the turn whole", async () => {
    const t = await createTestEngine({ offload: { maxChars: 2_000, structuredMaxChars: 1_000 } });
    for (const [i, [kind, text]] of adversarialToolOutputs().entries()) {
      const s = { sessionId: `s${i}`, sessionKey: `agent:main:adv${i}` };
      const messages = [
        user("run it"),
        call(`call_aB_${i}-x`, "exec"),
        result(`call_aB_${i}-x`, "exec", text),
        user("what did it say?"),
      ];
      const out = (await t.engine.assemble({ ...s, messages, tokenBudget: 50_000 })) as {
        messages: unknown[];
        estimatedTokens: number;
      };
      expect(out.messages, kind).toHaveLength(messages.length);
      expect(out.estimatedTokens, kind).toBeLessThanOrEqual(50_000);
      const shown = JSON.stringify(out.messages[2]);
      expect(shown, kind).toContain(ARTIFACT_STUB_PREFIX);
      expect(shown.length, kind).toBeLessThan(5_000);
    }
    expect(t.logs.filter((l) => l.startsWith("error"))).toEqual([]);
    await t.cleanup();
  });
});
