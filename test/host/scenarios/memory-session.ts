/**
 * Memory on a real host: a 60-turn session at a 32,000-token window in which the user states facts in the first 20
 * turns (one of them changed later: "set the timeout to 30", then "to 60") and asks about them from turn 31 on, while
 * every turn's `exec` prints 40,000 chars (host compactions on 2026.4.24, engine re-plans everywhere). At each asking
 * turn's first request, the fact (each statement of it) must be in the prompt, verbatim or quoted in the summary:
 * at least 99% of asks, the misses named. A figure (`npm run test:memory`): about 3-5 gateway-minutes per line.
 */
import { expect } from "vitest";
import { execTurnScript } from "../mock-scripts.js";
import { textOfMessage } from "../mock-wire.js";
import type { MockRequest } from "../mock-model.js";
import { sendTurnAsSeen } from "../turn-as-seen.js";
import type { HostScenario } from "./scenario.js";

const TURNS = 60;
const FIRST_ASK = 31;

/** A fact the user states, and the turn it is stated in. */
interface Fact {
  subject: string;
  statements: { turn: number; text: string }[];
}

const SUBJECTS = [
  "deploy window",
  "staging database port",
  "on-call engineer",
  "release branch name",
  "retry budget",
  "cache size",
  "log retention",
  "feature flag for checkout",
  "backup bucket",
  "rate limit",
  "canary share",
  "build cache key",
  "support email",
  "incident channel",
  "migration owner",
  "queue name",
  "region",
  "TLS certificate expiry",
  "error budget",
] as const;

/** The facts: one subject per turn 1-19, the API timeout stated in turn 20 and changed in turn 25. */
export function memoryFacts(): Fact[] {
  const facts: Fact[] = SUBJECTS.map((subject, i) => ({
    subject,
    statements: [{ turn: i + 1, text: `Note for later: the ${subject} is value-${(i + 1) * 37}-${subject.length}.` }],
  }));
  facts.push({
    subject: "API timeout",
    statements: [
      { turn: 20, text: "Set the API timeout to 30 seconds and remember it." },
      { turn: 25, text: "Change of plan: set the API timeout to 60 seconds instead of 30." },
    ],
  });
  return facts;
}

/** The user message of turn `n`: a fact, a question about one, or routine work. */
export function memoryMessage(n: number, facts: readonly Fact[]): string {
  const stated = facts.flatMap((f) => f.statements).find((s) => s.turn === n);
  if (stated) return `Turn ${n}: run the nightly report command. ${stated.text}`;
  if (n >= FIRST_ASK)
    return `Turn ${n}: run the nightly report command. What did I say the ${askedAt(n, facts).subject} is?`;
  return `Turn ${n}: run the nightly report command again and summarize what changed.`;
}

/** The fact asked about at turn `n` (from {@link FIRST_ASK} on, round-robin, the timeout every tenth turn). */
function askedAt(n: number, facts: readonly Fact[]): Fact {
  return n % 10 === 0 ? facts.at(-1)! : facts[(n - FIRST_ASK) % (facts.length - 1)]!;
}

/** Which asks found every statement of their fact in the prompt (the asking turn's first request). */
export function memoryRecall(requests: readonly MockRequest[], facts: readonly Fact[]) {
  const asks: { turn: number; subject: string; present: boolean }[] = [];
  for (let n = FIRST_ASK; n <= TURNS; n++) {
    const message = memoryMessage(n, facts);
    const first = requests.find((r) => r.indexInTurn === 0 && r.userText.includes(message));
    const text = first ? first.messages.map(textOfMessage).join("\n") : "";
    const fact = askedAt(n, facts);
    // Verbatim, or quoted in the summary as a JSON string (the statements hold no character JSON escapes).
    asks.push({ turn: n, subject: fact.subject, present: fact.statements.every((s) => text.includes(s.text)) });
  }
  const hits = asks.filter((a) => a.present).length;
  return { asks: asks.length, hits, share: hits / asks.length, misses: asks.filter((a) => !a.present) };
}

export const memorySessionScenario: HostScenario = {
  name: "memory-session",
  lines: ["2026.4.24", "2026.8.2", "2026.9.6"],
  engines: ["context-ledger"],
  figure: true,
  async run(session) {
    const facts = memoryFacts();
    session.setScript(execTurnScript({ outputChars: 40_000, answerChars: 600 }));
    let answered = 0;
    for (let n = 1; n <= TURNS; n++) {
      const seen = await sendTurnAsSeen(session, memoryMessage(n, facts));
      if (seen.answered) answered++;
    }
    const recall = memoryRecall(session.requests(), facts);
    const misses = recall.misses.map((m) => `turn ${m.turn}: ${m.subject}`).join("; ") || "none";
    console.log(
      `[memory-session] ${session.version}: ${recall.hits}/${recall.asks} asks found their fact in the prompt (${(recall.share * 100).toFixed(1)}%); misses: ${misses}; ${answered}/${TURNS} turns answered`,
    );
    expect(answered).toBe(TURNS);
    expect(recall.share, `misses: ${misses}`).toBeGreaterThanOrEqual(0.99);
  },
};
