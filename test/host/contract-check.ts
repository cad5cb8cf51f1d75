/**
 * The prompt contract applied to a scenario's session on a real gateway (`line-suite.ts` runs it after every
 * context-ledger scenario): every request body the model received for the conversation, judged by
 * `checkPromptContract`, with the handles the store holds read through the plugin's own CLI.
 */
import { expect } from "vitest";
import { extractJson, runLedgerCli } from "./openclaw-cli.js";
import { checkPromptContract, conversationRequests, type ContractViolation } from "./prompt-contract.js";
import type { ScenarioSession } from "./scenarios/scenario.js";

/** Every handle agent `agentId`'s store holds, as `context-ledger artifact list` shows them. */
async function storedHandles(session: ScenarioSession, agentId: string): Promise<Set<string>> {
  const res = await runLedgerCli(
    session.env,
    ["artifact", "list", "--agent", agentId, "--limit", "1000000", "--json"],
    {
      timeoutMs: 120_000,
    },
  );
  if (res.code !== 0)
    throw new Error(`Expected artifact list to succeed, got ${String(res.code)}: ${res.stderr.slice(-800)}`);
  const listed = extractJson(res.stdout) as { artifacts?: { handle: string }[] };
  return new Set((listed.artifacts ?? []).map((a) => a.handle));
}

/** One line per violation: the request, the clause, what was found. */
export function formatViolations(violations: readonly ContractViolation[]): string {
  return violations.map((v) => `request ${v.request}: ${v.clause}: ${v.detail}`).join("\n");
}

/** Fails the test with every request of the session's conversation that breaks the prompt contract. */
export async function expectPromptContract(session: ScenarioSession, agentId: string): Promise<number> {
  const sent = session.sentMessages();
  const requests = conversationRequests(session.requests(), sent);
  const violations = checkPromptContract(requests, sent, await storedHandles(session, agentId));
  expect(
    violations.length,
    `prompt contract, ${requests.length} requests:\n${formatViolations(violations).slice(0, 6000)}`,
  ).toBe(0);
  return requests.length;
}
