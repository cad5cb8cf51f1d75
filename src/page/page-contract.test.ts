import { describe, expect, it } from "vitest";
import type { ContractReading, ViewRecord } from "../state/view-record.js";
import { contractSection } from "./page-contract.js";

function view(turn: number, contract?: ContractReading[]): ViewRecord {
  return { turn, debt: { userTurn: turn }, ...(contract ? { contract } : {}) } as unknown as ViewRecord;
}

const reading = (clause: ContractReading["clause"], verdict: ContractReading["verdict"], detail = "d") => ({
  clause,
  verdict,
  detail,
});

describe("the Ledger page's contract section", () => {
  it("shows one row per judged prompt, a cell per clause, and each broken clause's detail escaped", () => {
    const html = contractSection([
      view(1),
      view(2, [reading("user-messages", "kept"), reading("real-dates", "request-body")]),
      view(3, [reading("tool-pairs", "broken", "call <c1> has no result")]),
    ]);
    const rows = html.match(/<tr><td class="n">(\d+)<\/td>/g) ?? [];
    expect(rows).toEqual(['<tr><td class="n">2</td>', '<tr><td class="n">3</td>']);
    expect(html.match(/<td class="c-/g)).toHaveLength(16);
    expect(html).toContain('<td class="c-request-body" title="d">request body</td>');
    expect(html).toContain("<li>turn 3, tool-pairs: call &lt;c1&gt; has no result</li>");
    expect(html).not.toContain("<c1>");
  });

  it("says so when no recorded prompt carries the contract's result", () => {
    expect(contractSection([view(1)])).toContain("No recorded prompt carries the contract's result yet.");
  });
});
