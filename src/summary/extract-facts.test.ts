import { describe, expect, it } from "vitest";
import {
  clip,
  codesIn,
  decisionSentences,
  errorLines,
  exitCodeIn,
  firstSentences,
  handlesIn,
  pathsIn,
  stripLedgerBlocks,
} from "./extract-facts.js";

const H = `ledger:v1:sha256:${"ab".repeat(32)}`;

describe("extract-facts", () => {
  it("finds paths and file names, not URLs, handles or version numbers", () => {
    const text = `Edit src/billing/invoice-service.ts and ./scripts/run.sh, see /etc/nginx/nginx.conf and config.yaml; docs at https://example.com/a/b.html, v1.2.3, ${H}.`;
    expect(pathsIn(text)).toEqual([
      "src/billing/invoice-service.ts",
      "./scripts/run.sh",
      "/etc/nginx/nginx.conf",
      "config.yaml",
    ]);
  });

  it("does not take code for files: member accesses, calls, one-segment absolute paths", () => {
    const code =
      "const n = s.length; process.stdout.write(out); fs.readFileSync('/file'); import x from '/srv/app/mod'; user.name.first";
    expect(pathsIn(code)).toEqual(["/srv/app/mod"]);
    // The exec command a real session carried: every "file" in it is code.
    const js =
      "node -e \"let s='';for(let i=0;s.length<n;i++)s+=' path=/srv/app/mod'+(i%97)+'/file'+(i%13)+'.ts';process.stdout.write(s.slice(0,n))\"";
    expect(pathsIn(js)).toEqual([]);
    expect(pathsIn("open README.md, then ~/notes/todo and lib/util.js")).toEqual([
      "README.md",
      "~/notes/todo",
      "lib/util.js",
    ]);
  });

  it("finds error codes of the usual shapes", () => {
    expect(codesIn("ERR_INVOICE_TOTAL_MISMATCH then ENOENT, E1042, TS2345, TypeError and HTTP 503")).toEqual([
      "ERR_INVOICE_TOTAL_MISMATCH",
      "ENOENT",
      "E1042",
      "TS2345",
      "TypeError",
      "HTTP 503",
    ]);
  });

  it("keeps error lines, exit codes and handles", () => {
    const log = "ok 1 - eta\nok 2 - estimate\nError: connect ECONNREFUSED 127.0.0.1:5432\nexit code 2";
    expect(errorLines(log, 3, 200)).toEqual(["Error: connect ECONNREFUSED 127.0.0.1:5432"]);
    expect(exitCodeIn(log)).toBe(2);
    expect(handlesIn(`see ${H} and ${H}`)).toEqual([H]);
  });

  it("takes first sentences and decisions within bounds", () => {
    expect(firstSentences("Fix the build. It fails on CI since Monday. Then deploy.", 45)).toBe(
      "Fix the build. It fails on CI since Monday.",
    );
    expect(decisionSentences("Looked at it. We decided to use PostgreSQL 16 for the store. Fine.", 200)).toEqual([
      "We decided to use PostgreSQL 16 for the store.",
    ]);
    expect(clip("a ".repeat(100), 20).length).toBeLessThanOrEqual(20);
  });

  it("cuts the engine's own blocks out so summaries never nest", () => {
    expect(stripLedgerBlocks("[context-ledger summary]\nTurn 1: x\n[/context-ledger summary]")).toBe("");
    expect(stripLedgerBlocks("before [context-ledger summary]\nold\n[/context-ledger summary] after")).toBe(
      "before  after",
    );
    expect(stripLedgerBlocks(`[context-ledger artifact ${H}]\nexit code 1`)).toContain(H);
  });
});
