import { describe, expect, it } from "vitest";
import { handleForBytes } from "../artifacts/index.js";
import { detectFormat } from "./detect-format.js";
import { buildPreview } from "./preview.js";
import { compileRedactPatterns, redactSecrets } from "./redact.js";
import { DEFAULT_SHAPE_LIMITS, planToolResultShape, shapeToolResultText, stubFor } from "./shape-tool-result.js";
import { buildStub, isLedgerBlock, parseStubHandle } from "./stub.js";
import { summarizeOutput } from "./summarize-output.js";
import { resolveToolPolicy } from "../config/tool-names.js";

const lines = (n: number, w = 10) => Array.from({ length: n }, (_, i) => `l${i}`.padEnd(w, ".")).join("\n");

describe("detectFormat", () => {
  it.each([
    ['{"a":1}', "json"],
    ["[1,2]", "json"],
    ["{broken", "text"],
    ["<!DOCTYPE html><html></html>", "html"],
    ['<?xml version="1.0"?><a/>', "xml"],
    ["page one\fpage two", "pdf-text"],
    ["2026-01-01T00:00:00Z INFO a\n2026-01-01T00:00:01Z WARN b\nplain\n", "log"],
    ["hello\nworld\nagain", "text"],
  ])("%j is %s", (text, format) => expect(detectFormat(text)).toBe(format));
});

describe("summary, preview, stub", () => {
  it("summarizes command output with exit code and error lines", () => {
    const out = `building\nsrc/a.ts(3,1): error TS2322: bad\nok\nFAILED 2 tests\nProcess exited with code 2`;
    expect(summarizeOutput(out, { toolName: "exec" })).toBe(
      'exec output · 86 chars · 5 lines · text · exit code 2\nerror lines: 2, first at line 2: "src/a.ts(3,1): error TS2322: bad"\nlast at line 4: "FAILED 2 tests"',
    );
    expect(summarizeOutput(JSON.stringify({ b: 1, a: [1] }))).toBe(
      "15 chars · 1 lines · json\nJSON object with 2 keys: b, a",
    );
  });

  it("previews head and tail within the budget", () => {
    const p = buildPreview(lines(500), 600);
    expect(p.length).toBeLessThanOrEqual(620);
    expect(p.startsWith("l0........\n")).toBe(true);
    expect(p.endsWith("l499......")).toBe(true);
    expect(p).toMatch(/\n… [\d,]+ chars omitted …\n/);
    expect(buildPreview("short", 600)).toBe("short");
  });

  it("builds a marked stub whose handle parses back and is guarded from re-ingestion", () => {
    const text = lines(300);
    const handle = handleForBytes(text);
    const stub = buildStub({ handle, text, label: "exec" });
    expect(stub.split("\n")[0]).toBe(`[context-ledger artifact ${handle}]`);
    expect(stub.split("\n")[1]).toBe("exec output · 3,299 chars · 300 lines · text");
    expect(stub.endsWith("[/context-ledger artifact]")).toBe(true);
    expect(stub).toContain(`ledger_fetch {"handle":"${handle}"`);
    expect(parseStubHandle(stub)).toBe(handle);
    expect(isLedgerBlock(stub)).toBe(true);
    expect(isLedgerBlock("  [context-ledger summary]\n...")).toBe(true);
    expect(isLedgerBlock("[other] x")).toBe(false);
    expect(parseStubHandle(stub.replace("sha256:", "sha256:X"))).toBeUndefined();
    expect(stubFor(handle, { bytes: 3299, lines: 300, format: "text", origin: { toolName: "exec" } })).toContain(
      "exec output · 3,299 bytes · 300 lines · text",
    );
  });
});

describe("shaping decisions", () => {
  const opts = (policy: "full" | "strip" | "offload" | "ephemeral") => ({
    toolName: "exec",
    policy,
    limits: DEFAULT_SHAPE_LIMITS,
  });
  it.each([
    ["8,000 chars on one line stays", "x".repeat(8_000), "under-threshold"],
    ["8,001 chars is offloaded", "x".repeat(8_001), "offloaded"],
    ["200 lines stays", lines(200, 2), "under-threshold"],
    ["201 lines is offloaded", lines(201, 2), "offloaded"],
    ["structured JSON over 2,000 chars is offloaded", JSON.stringify({ data: "y".repeat(2_100) }), "offloaded"],
    ["plain text of 2,100 chars stays", "y".repeat(2_100), "under-threshold"],
  ])("%s", (_name, text, decision) => {
    const plan = planToolResultShape(text, opts("offload"));
    expect(plan.decision).toBe(decision);
    if (decision === "offloaded") {
      expect(plan.handles).toEqual([handleForBytes(text)]);
      expect(plan.stashes[0]?.content).toBe(text);
      expect(parseStubHandle(plan.text)).toBe(handleForBytes(text));
    } else expect(plan.text).toBe(text);
  });

  it("full never touches, our own blocks are never reshaped, strip only strips", () => {
    const big = "x".repeat(50_000);
    expect(planToolResultShape(big, opts("full"))).toMatchObject({ decision: "full", text: big, changed: false });
    const stub = buildStub({ handle: handleForBytes(big), text: big });
    expect(planToolResultShape(stub + big, opts("offload"))).toMatchObject({
      decision: "ledger-block",
      changed: false,
    });
    // A transcript stub (paydown, session clean) reaches the prompt without its off-ramp line.
    const transcriptStub = buildStub({ handle: handleForBytes(big), text: big, offRamp: true });
    expect(planToolResultShape(transcriptStub, opts("offload"))).toMatchObject({
      decision: "ledger-block",
      text: buildStub({ handle: handleForBytes(big), text: big }),
      changed: true,
    });
    expect(planToolResultShape(big, opts("strip"))).toMatchObject({ decision: "under-threshold", text: big });
    const schemaDoc = JSON.stringify({
      name: "t",
      inputSchema: { type: "object", properties: { a: { type: "string", description: "d".repeat(200) } } },
    });
    const stripped = planToolResultShape(schemaDoc, opts("strip"));
    expect(stripped.decision).toBe("stripped");
    expect(stripped.stashes[0]?.info.kind).toBe("schema");
  });

  it("stashes before answering and redacts the preview", async () => {
    const secret = `token=abcd1234efgh5678 ${"x".repeat(9_000)}`;
    const stored = new Map<string, string>();
    const r = await shapeToolResultText(secret, {
      ...opts("offload"),
      stash: async (content) => (stored.set(handleForBytes(content), content), { handle: handleForBytes(content) }),
    });
    expect(r.changed).toBe(true);
    expect(stored.get(r.handles[0]!)).toBe(secret);
    expect(r.text).not.toContain("abcd1234efgh5678");
    expect(r.text).toContain("token=[REDACTED]");
  });
});

describe("redactSecrets", () => {
  it.each([
    ["key sk-proj-abcdefghijklmnop1234 end", "key [REDACTED] end"],
    ["AKIAABCDEFGHIJKLMNOP", "[REDACTED]"],
    [`t ghp_${"a".repeat(36)}`, "t [REDACTED]"],
    ["xoxb-1234567890-abcdef", "[REDACTED]"],
    ["Authorization: Bearer abc.def.ghi-jkl_mno", "Authorization: Bearer [REDACTED]"],
    ["password=hunter22 next", "password=[REDACTED] next"],
    ['{"api_key": "s3cr3tvalue"}', '{"api_key": "[REDACTED]"}'],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "[REDACTED]"],
    ["nothing secret here", "nothing secret here"],
  ])("%j", (input, expected) => expect(redactSecrets(input)).toBe(expected));

  it("applies extra patterns and skips invalid ones", () => {
    expect(redactSecrets("id=CUST-1234 ok", compileRedactPatterns(["CUST-\\d+", "("]))).toBe("id=[REDACTED] ok");
  });
});

describe("resolveToolPolicy", () => {
  it("exact names win over globs, longest glob wins, default offload", () => {
    const p = { "web_*": "strip", "web_fetch*": "ephemeral", web_fetch: "full", "?ash": "offload" } as const;
    expect(resolveToolPolicy("web_fetch", p)).toBe("full");
    expect(resolveToolPolicy("web_fetcher", p)).toBe("ephemeral");
    expect(resolveToolPolicy("web_search", p)).toBe("strip");
    expect(resolveToolPolicy("bash", p)).toBe("offload");
    expect(resolveToolPolicy("exec", p)).toBe("offload");
    expect(resolveToolPolicy("ledger_fetch", {})).toBe("full");
  });
});
