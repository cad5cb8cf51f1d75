/**
 * What each engine's model read in the demo: every request of the conversation judged by the prompt contract
 * (docs/design.md, the same checker the host suites run), and the summary block as the model last read it.
 */
import type { MockRequest } from "../test/host/mock-model.js";
import { textOfMessage } from "../test/host/mock-wire.js";
import {
  checkPromptContract,
  conversationRequests,
  HOST_COMPACTION_WRAPPER,
  SUMMARY_OPEN,
  type ContractViolation,
  type SentUserMessage,
} from "../test/host/prompt-contract.js";

/** The contract's result over one engine's requests, and the summary the model last read. */
export interface PromptReading {
  /** Requests of the conversation judged. */
  requests: number;
  violations: ContractViolation[];
  /** The summary block (the engine's, or the host's compaction summary) in the last request, if it had one. */
  lastSummary: string | null;
}

/** Judges `requests` (one engine's, in order) against the user messages sent into the conversation. */
export function readPrompts(requests: readonly MockRequest[], sent: readonly SentUserMessage[]): PromptReading {
  const judged = conversationRequests(requests, sent);
  const last = judged.at(-1);
  const lastSummary =
    last?.messages.map(textOfMessage).find((t) => t.includes(SUMMARY_OPEN) || t.includes(HOST_COMPACTION_WRAPPER)) ??
    null;
  return { requests: judged.length, violations: checkPromptContract(judged, sent), lastSummary };
}

/** One line per engine for the console: requests judged, violations by clause. */
export function formatPromptReading(engine: string, reading: PromptReading): string {
  if (reading.violations.length === 0) return `${engine}: the prompt contract held on all ${reading.requests} requests`;
  const byClause = new Map<string, number>();
  for (const v of reading.violations) byClause.set(v.clause, (byClause.get(v.clause) ?? 0) + 1);
  const counts = [...byClause].map(([clause, n]) => `${clause} ×${n}`).join(", ");
  return `${engine}: ${reading.violations.length} prompt contract violations in ${reading.requests} requests (${counts})`;
}
