/**
 * The prompt contract's result per recorded prompt: each clause as the engine judged what it assembled
 * (`engine/view-contract.ts`), and which clauses only the request body can tell.
 */
import { userTurnOfView } from "../cli/inspect/view-render.js";
import type { ContractClause, ContractReading, ViewRecord } from "../state/view-record.js";
import { esc } from "./page-html.js";

/** The clauses in docs/design.md's order, with the page's column heads. */
const CLAUSES: readonly (readonly [ContractClause, string])[] = [
  ["user-messages", "user messages"],
  ["turn-numbers", "turn numbers"],
  ["stub-size", "stub sizes"],
  ["user-stub-floor", "user stub floor"],
  ["one-summary", "one summary"],
  ["real-dates", "real dates"],
  ["handles-resolve", "handles resolve"],
  ["tool-pairs", "tool pairs"],
];

const WORD: Record<ContractReading["verdict"], string> = {
  kept: "kept",
  broken: "BROKEN",
  "request-body": "request body",
};

/** The section: one row per recorded prompt (the turn's main one), one column per clause. */
export function contractSection(views: readonly ViewRecord[]): string {
  const head =
    "<h2>Prompt contract</h2>" +
    '<p class="muted">Per recorded prompt (each turn\'s main request, the newest turns), the clauses of the prompt contract (docs/design.md) as the engine judged what it assembled: "kept" or "BROKEN". "request body" marks a clause only the request the host builds afterwards can tell (dates are stamped by the host; turn numbers are checked against every message the user sent); the host tests judge those on every request body.</p>';
  const judged = views.filter((v) => v.contract !== undefined);
  if (judged.length === 0) return `${head}<p>No recorded prompt carries the contract's result yet.</p>`;
  const rows = judged.map((v) => {
    const cells = CLAUSES.map(([clause]) => {
      const r = v.contract?.find((c) => c.clause === clause);
      if (!r) return '<td class="c-none">-</td>';
      return `<td class="c-${r.verdict}" title="${esc(r.detail)}">${esc(WORD[r.verdict])}</td>`;
    });
    return `<tr><td class="n">${userTurnOfView(v)}</td>${cells.join("")}</tr>`;
  });
  const broken = judged.flatMap((v) =>
    (v.contract ?? [])
      .filter((r) => r.verdict === "broken")
      .map((r) => `<li>turn ${userTurnOfView(v)}, ${esc(r.clause)}: ${esc(r.detail)}</li>`),
  );
  const newest = judged.at(-1)?.contract ?? [];
  return [
    head,
    `<table class="contract"><tr><th>Turn</th>${CLAUSES.map(([, h]) => `<th>${esc(h)}</th>`).join("")}</tr>${rows.join("")}</table>`,
    broken.length > 0 ? `<ul class="broken">${broken.join("")}</ul>` : "<p>No clause broken in these prompts.</p>",
    `<p class="muted">The newest prompt: ${newest.map((r) => `${esc(r.clause)}: ${esc(r.detail)}`).join("; ")}.</p>`,
  ].join("\n");
}
