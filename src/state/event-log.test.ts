import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileRedactPatterns, redactSecrets } from "../results/redact.js";
import { useTempDir } from "../../test/support/temp-dir.js";
import { createEventLog, rotatedEventLogPath } from "./event-log.js";

const tmp = useTempDir("ledger-events-");

describe("event log", () => {
  it("stays bounded: rotates into one previous file at the cap", async () => {
    const file = path.join(tmp(), "logs", "events.jsonl");
    const log = createEventLog(file, { maxBytes: 10_000 });
    for (let i = 0; i < 500; i++) void log.write({ op: "assemble", i, note: "x".repeat(80) });
    await log.flush();
    const current = (await fsp.stat(file)).size;
    const previous = (await fsp.stat(rotatedEventLogPath(file))).size;
    expect(current).toBeLessThanOrEqual(10_000);
    expect(previous).toBeLessThanOrEqual(10_000);
    const last = (await fsp.readFile(file, "utf8")).trimEnd().split("\n").at(-1) ?? "";
    expect(JSON.parse(last)).toMatchObject({ op: "assemble", i: 499 });
  });

  it("redacts values, so every line stays valid JSON whatever a rule matches", async () => {
    const file = path.join(tmp(), "events.jsonl");
    // A rule that would eat the quotes and comma around a value if it ran over the serialised line.
    const log = createEventLog(file, {
      redact: (t) => redactSecrets(t, compileRedactPatterns(['password"?\\s*[:=]\\s*"?[^\\s]+'])),
    });
    await log.write({
      op: "error",
      error: 'login failed: password="hunter2", user=bob',
      nested: { k: "password=abc" },
    });
    const line = (await fsp.readFile(file, "utf8")).trim();
    const parsed = JSON.parse(line) as { error: string; nested: { k: string } };
    expect(parsed.error).not.toContain("hunter2");
    expect(parsed.nested.k).not.toContain("abc");
  });
});
