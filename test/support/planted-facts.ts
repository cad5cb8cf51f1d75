/**
 * A deterministic tool-heavy conversation that plants 40 facts (decisions,
 * file names, error codes, numbers, artifact handles) during its first turns
 * and then runs filler turns, plus {@link factRecall} to measure how many of
 * the facts a prompt still carries. Used by the summary tests, the
 * engine-level continuity test and the bench. Facts sit where real ones do:
 * mid-message in user and assistant prose, in tool arguments, in the middle
 * of tool output, in handle stubs; not only in first sentences.
 */
import { createHash } from "node:crypto";
import { prng } from "./prng.js";

/** Kinds of planted fact. */
export type FactKind = "decision" | "file" | "error" | "number" | "handle";

/** One planted fact: `key` must appear verbatim in a prompt to count as recalled. */
export interface PlantedFact {
  id: string;
  kind: FactKind;
  key: string;
  /** 1-based turn that plants it. */
  turn: number;
}

/** A message of the generated conversation (OpenClaw `AgentMessage` shape). */
export type PlantedMessage =
  | { role: "user"; content: string | { type: "text"; text: string }[]; timestamp: number }
  | {
      role: "assistant";
      content: (
        | { type: "text"; text: string }
        | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }
      )[];
      timestamp: number;
    }
  | {
      role: "toolResult";
      toolCallId: string;
      toolName: string;
      content: { type: "text"; text: string }[];
      isError: boolean;
      timestamp: number;
    };

/** The generated conversation. */
export interface PlantedConversation {
  messages: PlantedMessage[];
  facts: PlantedFact[];
  /** Index in `messages` of each turn's user message (`turnStarts[0]` is turn 1). */
  turnStarts: number[];
  /** Every artifact handle in the conversation (stubs), with the original content each stands for. */
  artifacts: Map<string, string>;
}

/** Options for {@link generatePlantedConversation}. */
export interface PlantedOptions {
  /** @default 20260906 */
  seed?: number;
  /** @default 60 */
  turns?: number;
  /** Turns over which the 40 facts are planted. @default 15 */
  factTurns?: number;
}

const DECISIONS = [
  "use PostgreSQL 16 for the event store",
  "keep the public API on REST, not GraphQL",
  "pin Node to 24.x in CI",
  "store money as integer cents",
  "retry webhooks with exponential backoff",
  "drop the legacy v1 export format",
  "run migrations before the blue/green switch",
  "log as JSON lines, never plain text",
];
const FILES = [
  "src/billing/invoice-service.ts",
  "config/rate-limits.yaml",
  "migrations/0042_add_ledger_index.sql",
  "scripts/rotate-keys.sh",
  "packages/web/src/routes/checkout.tsx",
  "infra/terraform/queues.tf",
  "docs/adr/0007-event-store.md",
  "test/e2e/refund-flow.spec.ts",
];
const ERRORS = [
  "ERR_INVOICE_TOTAL_MISMATCH",
  "E1042",
  "ECONNREFUSED",
  "TS2345",
  "ERR_PNPM_OUTDATED_LOCKFILE",
  "EADDRINUSE",
  "SQLSTATE 23505",
  "OOMKilled",
];
const NUMBERS = [
  "750 requests per minute",
  "p99 latency of 340 ms",
  "batch size of 2500",
  "port 8443",
  "timeout of 45 seconds",
  "$18,400 per month",
  "retention of 90 days",
  "3 replicas",
];

/** Deterministic PRNG (mulberry32). */
export const createRng = prng;

/** The handle an artifact with this content would get. */
export function handleFor(content: string): string {
  return `ledger:v1:sha256:${createHash("sha256").update(content).digest("hex")}`;
}

/** Builds the conversation. Same options, same bytes. */
export function generatePlantedConversation(options: PlantedOptions = {}): PlantedConversation {
  const rng = createRng(options.seed ?? 20260906);
  const turns = options.turns ?? 60;
  const factTurns = Math.max(1, Math.min(turns, options.factTurns ?? 15));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const b = new Builder();

  // Deal the 40 facts over the fact turns, round-robin by kind so each turn mixes kinds.
  const plan: PlantedFact[][] = Array.from({ length: factTurns }, () => []);
  const facts: PlantedFact[] = [];
  const kinds: [FactKind, readonly string[]][] = [
    ["decision", DECISIONS],
    ["file", FILES],
    ["error", ERRORS],
    ["number", NUMBERS],
  ];
  const handleContents: string[] = [];
  for (let i = 0; i < 8; i++) handleContents.push(bigOutput(rng, i, 9000 + Math.floor(rng() * 4000)));
  let slot = 0;
  for (let i = 0; i < 8; i++) {
    for (const [kind, pool] of kinds) {
      facts.push({ id: `${kind}-${i + 1}`, kind, key: pool[i]!, turn: (slot % factTurns) + 1 });
      slot++;
    }
    facts.push({
      id: `handle-${i + 1}`,
      kind: "handle",
      key: handleFor(handleContents[i]!),
      turn: (slot % factTurns) + 1,
    });
    slot++;
  }
  for (const f of facts) plan[f.turn - 1]!.push(f);

  for (let t = 1; t <= turns; t++) {
    if (t <= factTurns) factTurn(b, plan[t - 1]!, { contents: handleContents, all: facts, rng, pick });
    else fillerTurn(b, t, rng, pick);
  }
  return { messages: b.messages, facts, turnStarts: b.turnStarts, artifacts: b.artifacts };
}

class Builder {
  messages: PlantedMessage[] = [];
  turnStarts: number[] = [];
  artifacts = new Map<string, string>();
  #clock = 1_780_000_000_000;
  #calls = 0;
  user(text: string): void {
    this.turnStarts.push(this.messages.length);
    this.messages.push({
      role: "user",
      content: this.#calls % 2 ? [{ type: "text", text }] : text,
      timestamp: this.#tick(),
    });
  }
  internal(): void {
    this.messages.push({
      role: "user",
      content:
        "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nruntime note: tool results above\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>",
      timestamp: this.#tick(),
    });
  }
  say(text: string): void {
    this.messages.push({ role: "assistant", content: [{ type: "text", text }], timestamp: this.#tick() });
  }
  call(name: string, args: Record<string, unknown>, output: string, { isError = false, lead = "" } = {}): void {
    const id = `call_${++this.#calls}`;
    const content: (
      | { type: "text"; text: string }
      | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }
    )[] = [];
    if (lead) content.push({ type: "text", text: lead });
    content.push({ type: "toolCall", id, name, arguments: args });
    this.messages.push({ role: "assistant", content, timestamp: this.#tick() });
    this.messages.push({
      role: "toolResult",
      toolCallId: id,
      toolName: name,
      content: [{ type: "text", text: output }],
      isError,
      timestamp: this.#tick(),
    });
  }
  #tick(): number {
    this.#clock += 1000;
    return this.#clock;
  }
}

type Pick = <T>(xs: readonly T[]) => T;

/** What every planted-fact turn draws from: the handle contents so far, all facts, the seeded random source. */
interface FactTurnContext {
  contents: string[];
  all: PlantedFact[];
  rng: () => number;
  pick: Pick;
}

function factTurn(b: Builder, planted: PlantedFact[], { contents, all, rng, pick }: FactTurnContext): void {
  const intro = pick([
    "Next item on the billing migration.",
    "Picking up where we left off.",
    "One more thing before the release.",
    "Quick follow-up on the incident.",
  ]);
  const userBits: string[] = [intro];
  const answerBits: string[] = [pick(["Done.", "Here is where this stands.", "Looked into it.", "Understood."])];
  const calls: (() => void)[] = [];
  for (const f of planted) {
    const where = Math.floor(rng() * 3);
    switch (f.kind) {
      case "decision":
        if (where === 0) userBits.push(`After the review we decided to ${f.key}.`);
        else answerBits.push(`Agreed with the team: we will ${f.key} from now on.`);
        break;
      case "number":
        if (where === 2) answerBits.push(`The measurement I got is ${f.key}, which is what we size against.`);
        else userBits.push(`For context, the current setting is ${f.key} in production.`);
        break;
      case "file":
        if (where === 0) userBits.push(`Please look at ${f.key} first.`);
        else if (where === 1)
          calls.push(() => b.call("read", { path: f.key }, codeListing(rng, f.key), { lead: "Reading the file." }));
        else answerBits.push(`I updated ${f.key} accordingly.`);
        break;
      case "error": {
        if (where === 0) {
          userBits.push(`Staging keeps failing with ${f.key} since this morning.`);
          break;
        }
        const command = pick(["npm test", "pnpm run build", "make deploy-staging"]);
        calls.push(() =>
          b.call("exec", { command }, testLog(rng, `fatal: ${f.key} raised in worker ${1 + Math.floor(rng() * 9)}`), {
            isError: true,
          }),
        );
        break;
      }
      case "handle": {
        const i = all.filter((x) => x.kind === "handle").indexOf(f);
        const content = contents[i]!;
        b.artifacts.set(f.key, content);
        if (where === 2) answerBits.push(`The full trace is stored as ${f.key} if we need it again.`);
        else
          calls.push(() =>
            b.call("exec", { command: `./scripts/collect-logs.sh --shard ${i + 1}` }, stub(f.key, content)),
          );
        break;
      }
    }
  }
  b.user(userBits.join(" "));
  for (const call of calls) call();
  if (rng() < 0.5) b.internal();
  b.say(answerBits.join(" "));
}

const MODULES = [
  "utils/strings",
  "utils/format-date",
  "auth/session",
  "cart/totals",
  "search/index",
  "notify/email",
  "api/health",
  "core/cache",
];

function fillerTurn(b: Builder, t: number, rng: () => number, pick: Pick): void {
  const mod = pick(MODULES);
  const kind = Math.floor(rng() * 3);
  if (kind === 0) {
    b.user(`Run the unit tests for src/${mod} again and tell me if anything changed.`);
    const n = 20 + Math.floor(rng() * 40);
    b.call("exec", { command: `npm test -- src/${mod}.test.ts` }, passLog(rng, mod, n));
    b.say(`All ${n} tests in src/${mod}.test.ts pass. Nothing changed since the last run.`);
  } else if (kind === 1) {
    b.user(`Show me what src/${mod}.ts exports and whether anything there is unused.`);
    b.call("read", { path: `src/${mod}.ts` }, codeListing(rng, `src/${mod}.ts`));
    if (rng() < 0.5) b.internal();
    b.say(`src/${mod}.ts exports ${2 + Math.floor(rng() * 5)} functions; none of them look unused.`);
  } else {
    b.user(`Check git status and the last few commits, turn ${t}.`);
    b.call("exec", { command: "git status --short && git log --oneline -5" }, gitLog(rng));
    b.say("The tree is clean apart from the lockfile; the last five commits are routine.");
  }
}

function stub(handle: string, content: string): string {
  const lines = content.split("\n");
  return [
    `[context-ledger artifact ${handle}]`,
    `${content.length} chars, ${lines.length} lines, text; exit code 0`,
    `preview: ${lines[0]} ... ${lines.at(-1)}`,
    `Fetch with ledger_fetch.`,
  ].join("\n");
}

function bigOutput(rng: () => number, i: number, chars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < chars; n++) {
    const line = `shard-${i + 1} ${String(n).padStart(5, "0")} INFO request id=${Math.floor(rng() * 1e9).toString(16)} took ${Math.floor(rng() * 900)}ms`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

function testLog(rng: () => number, errorLine: string): string {
  const lines: string[] = [];
  const n = 30 + Math.floor(rng() * 30);
  for (let i = 0; i < n; i++) lines.push(`  ok ${i + 1} - case ${Math.floor(rng() * 1e6).toString(36)}`);
  lines.splice(Math.floor(n / 2), 0, errorLine);
  lines.push("exit code 1");
  return lines.join("\n");
}

function passLog(rng: () => number, mod: string, n: number): string {
  const lines = [`> vitest run src/${mod}.test.ts`];
  for (let i = 0; i < n; i++) lines.push(`  ✓ ${mod} case ${i + 1} (${1 + Math.floor(rng() * 30)}ms)`);
  lines.push(`Tests ${n} passed (${n})`, "exit code 0");
  return lines.join("\n");
}

function codeListing(rng: () => number, file: string): string {
  const lines = [`// ${file}`];
  const n = 15 + Math.floor(rng() * 25);
  for (let i = 0; i < n; i++)
    lines.push(`export function fn${i}_${Math.floor(rng() * 1e4)}(x: number): number { return x * ${i + 1}; }`);
  return lines.join("\n");
}

function gitLog(rng: () => number): string {
  const lines = [" M package-lock.json"];
  for (let i = 0; i < 5; i++)
    lines.push(
      `${Math.floor(rng() * 0xfffffff)
        .toString(16)
        .padStart(7, "0")} chore: routine update ${i + 1}`,
    );
  return lines.join("\n");
}

/** Result of {@link factRecall}. */
export interface FactRecall {
  recalled: number;
  total: number;
  /** `recalled / total` (1 when there are no facts). */
  share: number;
  missing: PlantedFact[];
}

/** The share of `facts` present in `promptText` verbatim (a handle counts when the handle itself is present). */
export function factRecall(promptText: string, facts: readonly PlantedFact[]): FactRecall {
  const missing = facts.filter((f) => !promptText.includes(f.key));
  const recalled = facts.length - missing.length;
  return { recalled, total: facts.length, share: facts.length === 0 ? 1 : recalled / facts.length, missing };
}
