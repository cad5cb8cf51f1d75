import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonParseMemo } from "../../src/artifacts/json-bounded.js";
import { selectSlice } from "../../src/artifacts/selectors.js";
import { compileSafeRegex } from "../../src/safe-regex.js";
import { detectFormat } from "../../src/results/detect-format.js";
import { buildPreview } from "../../src/results/preview.js";
import { redactSecrets } from "../../src/results/redact.js";
import { planSchemaStrip } from "../../src/results/strip-schema.js";
import { summarizeOutput } from "../../src/results/summarize-output.js";
import {
  codesIn,
  decisionSentences,
  errorLines,
  errorSentences,
  exitCodeIn,
  factSentences,
  firstSentences,
  handlesIn,
  pathsIn,
  stripLedgerBlocks,
} from "../../src/summary/extract-facts.js";
import { call, createTestEngine, result, user } from "../support/engine-harness.js";

const MB = 1_000_000;
const fill = (unit: string, chars = MB) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
const time = <T>(run: () => T): { value: T; ms: number } => {
  const t0 = performance.now();
  const value = run();
  return { value, ms: performance.now() - t0 };
};

// Openings the built-in patterns key on; each is tried repeated, followed by a long run, and in between runs.
const SEEDS = [
  "exit code",
  "exited with status",
  'exitCode"',
  "return code",
  "password",
  "token:",
  "secret=",
  "Bearer ",
  "-----BEGIN RSA PRIVATE KEY-----",
  "-----BEGIN ",
  "sk-",
  "AKIA",
  "ghp_",
  "xoxb-",
  "eyJ",
  "[context-ledger summary",
  "[context-ledger artifact ",
  "ledger:v1:sha256:",
  "http://",
  "/a/",
  "a.",
  "./",
  "ERR_",
  "E",
  "error",
  "2026-11-22T03:00",
  "[INFO",
  "Jan 1",
  '{"a":',
  "[",
  '\\"',
  "a",
];
const RUNS = [" ", "\t", "a", "A", "0", "/", ".", "=", "-", "\n", '\\"'];

function* adversarialInputs(): Generator<[string, string]> {
  for (const seed of SEEDS) {
    // Led by "x " too: some scans short-cut on a leading marker.
    for (const lead of ["", "x "]) {
      yield [`${lead}${seed} repeated`, lead + fill(seed)];
      yield [`${lead}${seed} + spaces`, lead + seed + fill(" ", MB - seed.length)];
      for (const run of RUNS)
        yield [`${lead}(${seed} + ${JSON.stringify(run)}x64) repeated`, lead + fill(seed + run.repeat(64))];
    }
  }
}

const TARGETS: Array<[string, (text: string) => unknown]> = [
  ["redactSecrets", (t) => redactSecrets(t)],
  ["summarizeOutput", (t) => summarizeOutput(t, { toolName: "exec" })],
  ["detectFormat", (t) => detectFormat(t)],
  ["buildPreview", (t) => buildPreview(t)],
  ["planSchemaStrip", (t) => planSchemaStrip(t)],
  ["stripLedgerBlocks", (t) => stripLedgerBlocks(t)],
  [
    "extract-facts",
    (t) => [
      firstSentences(t, 200),
      decisionSentences(t, 3),
      errorSentences(t, 3),
      factSentences(t, 3),
      handlesIn(t),
      pathsIn(t),
      codesIn(t),
      errorLines(t, 3, 200),
      exitCodeIn(t),
    ],
  ],
];

describe("bounded work on any input", () => {
  it("every built-in pattern finishes on 1 MB adversarial inputs (time guard against ReDoS, 2 s per call)", () => {
    const slow: string[] = [];
    let worst = { ms: 0, what: "" };
    for (const [kind, text] of adversarialInputs()) {
      for (const [name, run] of TARGETS) {
        const { ms } = time(() => run(text));
        if (ms > worst.ms) worst = { ms, what: `${name} on ${kind}` };
        if (ms > 2_000) slow.push(`${name} on ${kind}: ${Math.round(ms)} ms`);
      }
    }
    console.log(`bounded-work: slowest call ${Math.round(worst.ms)} ms (${worst.what})`);
    expect(slow).toEqual([]);
  });

  it("stripLedgerBlocks: the linear scan cuts exactly what the old regex cut (property)", () => {
    const OLD = /\[context-ledger (summary|checkpoint)\b[^\]]*\][\s\S]*?(?:\[\/context-ledger \1\]|$)/g;
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
        expect(stripLedgerBlocks(text)).toBe(text.replace(OLD, ""));
      }),
      { numRuns: 2_000 },
    );
  });

  it("summarizeOutput: 120 KB with `exit code` and spaces is linear (was 16 s)", () => {
    const text = `exit code${" ".repeat(120_000)}x`;
    const { ms } = time(() => summarizeOutput(text));
    expect(ms).toBeLessThan(1_000);
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

  it("planSchemaStrip still strips the same parts after the rewrite", () => {
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

  it("grep: stacked bounded quantifiers stop at the time limit (ran 25 s)", () => {
    const pattern = "a{0,32}a{0,32}a{0,32}a{0,32}a{0,32}b";
    expect(() => compileSafeRegex(pattern)).not.toThrow();
    const text = Array.from({ length: 3 }, () => "a".repeat(1_000)).join("\n");
    const { value, ms } = time(() =>
      selectSlice(text, { kind: "grep", pattern }, { maxChars: 8_000, grepTimeoutMs: 300 }),
    );
    expect(ms).toBeLessThan(2_000);
    expect(value.truncated).toBe(true);
    expect(value.notice).toMatch(/scan stopped at line [\d,]+ after the 300 ms limit/);
  });

  it("grep: an ordinary scan still finds every match", () => {
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

  it("assemble stays under 1 s (guard 3 s on a shared machine) with a 1 MB adversarial tool output of each kind", async () => {
    const t = await createTestEngine({ offload: { maxChars: 2_000, structuredMaxChars: 1_000 } });
    const kinds: Array<[string, string]> = [
      ["exit code + spaces", `exit code${fill(" ", MB - 9)}`],
      ["deep JSON", `${"[".repeat(MB / 2)}${"]".repeat(MB / 2)}`],
      ["deep objects", `${'{"a":'.repeat(MB / 12)}1${"}".repeat(MB / 12)}`],
      ["password runs", fill(`password${" ".repeat(64)}`)],
      ["private key openings", fill("-----BEGIN RSA PRIVATE KEY-----\n")],
      ["ledger summary openings", `x ${fill("[context-ledger summary ")}`],
      ["paths", fill("a/".repeat(64) + " ")],
      ["log-like", fill("2026-11-22T03:00 ")],
      ["quotes", fill('\\"')],
    ];
    const timings: string[] = [];
    // Warm up (tokenizer tables load on first use): the guard is about the input, not start-up.
    await t.engine.assemble({
      sessionId: "warm",
      sessionKey: "agent:main:warm",
      messages: [user("hi"), call("call_w_1-x", "exec"), result("call_w_1-x", "exec", "y".repeat(5_000))],
      tokenBudget: 50_000,
    });
    for (const [i, [kind, text]] of kinds.entries()) {
      const s = { sessionId: `s${i}`, sessionKey: `agent:main:adv${i}` };
      const messages = [
        user("run it"),
        call(`call_aB_${i}-x`, "exec"),
        result(`call_aB_${i}-x`, "exec", text),
        user("what did it say?"),
      ];
      const { ms } = await timeAsync(() => t.engine.assemble({ ...s, messages, tokenBudget: 50_000 }));
      timings.push(`${kind}: ${Math.round(ms)} ms`);
      expect(ms, kind).toBeLessThan(3_000);
    }
    console.log(`assemble on 1 MB adversarial outputs: ${timings.join("; ")}`);
    expect(t.logs.filter((l) => l.startsWith("error"))).toEqual([]);
    await t.cleanup();
  });
});

async function timeAsync<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await run();
  return { value, ms: performance.now() - t0 };
}
