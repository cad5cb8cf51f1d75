/**
 * The prompt contract (docs/design.md, "The prompt contract") as the engine can judge it from what it assembled:
 * the host's list, the messages it kept (as shaped), the summary block, and which cited handles the store holds.
 * Clauses that depend on what the host adds after the engine (dates) or on what the user sent before the host's
 * list begins (turn numbers) are only judged on the request body: their reading says so rather than claim a result.
 */
import { findHandles } from "../artifacts/index.js";
import { USER_PART_STUB_FLOOR_CHARS } from "../assembly/reduce-user-turn.js";
import {
  blocksOf,
  HOST_INTERNAL_CONTEXT_PREFIX,
  isGenuineUserMessage,
  roleOf,
  SUMMARY_OPEN,
  textOf,
  toolCallIdsOf,
  toolResultIdOf,
  withoutHostFraming,
} from "../host/messages.js";
import { parseStubHandle } from "../results/stub.js";
import type { ContractReading } from "../state/view-record.js";
import { genuineUserText } from "../summary/user-turns.js";

/** What one assembly gave the model, as the contract reads it. */
export interface AssembledPrompt {
  /** The history the model is shown (the host's list without operator exchanges), before shaping. */
  shown: readonly unknown[];
  /** The messages sent, as shaped, and their indexes in {@link AssembledPrompt.shown}. */
  kept: readonly unknown[];
  keptIndexes: readonly number[];
  /** The summary block sent with them, if any. */
  summaryText: string | undefined;
}

/** A stub's statement of the size it stands for (`… · 150,000 chars · …`). */
const STATED_SIZE = /· ([\d,]+) chars/;
const CONDENSED_LINE = /^Turn \d+ \(condensed from ([\d,]+) chars\): (".*")$/gm;
const LEFT_OUT_LINE = /^Turns (\d+)-(\d+) \(left out: (\d+)/m;
const number = (text: string): number => Number(text.replace(/,/g, ""));

/** Every handle the prompt cites: in the messages sent and in the summary block. */
export function citedHandles(prompt: AssembledPrompt): Set<string> {
  const handles = new Set<string>();
  for (const m of prompt.kept) for (const h of findHandles(textOf(m))) handles.add(h);
  for (const h of findHandles(prompt.summaryText ?? "")) handles.add(h);
  return handles;
}

/**
 * The contract's clauses as the engine can judge them, in docs/design.md's order. `cited` is
 * {@link citedHandles} of the prompt, and `isStored` says which of them the store holds.
 */
export function judgeContract(
  prompt: AssembledPrompt,
  cited: ReadonlySet<string>,
  isStored: (handle: string) => boolean,
): ContractReading[] {
  return [
    userMessages(prompt),
    {
      clause: "turn-numbers",
      verdict: "request-body",
      detail:
        "the turn numbers are checked against every message the user sent, including those before the host's list",
    },
    ...stubSizes(prompt.kept),
    oneSummary(prompt),
    {
      clause: "real-dates",
      verdict: "request-body",
      detail: "the host stamps the messages' dates when it builds the request, after the engine",
    },
    handlesResolve([...cited], isStored),
    toolPairs(prompt.kept),
  ];
}

function userMessages({ shown, kept, keptIndexes, summaryText }: AssembledPrompt): ContractReading {
  const summary = summaryText ?? "";
  const sentAt = new Map(keptIndexes.map((index, k) => [index, kept[k]]));
  const condensedLines = [...summary.matchAll(CONDENSED_LINE)];
  const condensedHonestly = (words: string): boolean =>
    condensedLines.some((line) => {
      if (number(line[1]!) !== words.length) return false;
      try {
        const pieces = (JSON.parse(line[2]!) as string).split("…").map((p) => p.trim());
        return pieces.every((p) => p === "" || words.includes(p));
      } catch {
        return false;
      }
    });
  let verbatim = 0;
  let quoted = 0;
  let condensed = 0;
  const missing: number[] = [];
  shown.forEach((m, i) => {
    if (!isGenuineUserMessage(m)) return;
    const sent = sentAt.get(i);
    if (sent !== undefined && textOf(sent).includes(textOf(m))) return void verbatim++;
    const text = genuineUserText(m);
    if (text === undefined) return;
    const words = withoutHostFraming(text);
    if (summary.includes(JSON.stringify(words).slice(1, -1))) return void quoted++;
    if (condensedHonestly(words)) return void condensed++;
    missing.push(i);
  });
  const leftOut = LEFT_OUT_LINE.exec(summary);
  const counts = `${verbatim} verbatim, ${quoted} quoted whole in the summary, ${condensed} condensed`;
  if (missing.length > 0 || leftOut)
    return {
      clause: "user-messages",
      verdict: "broken",
      detail: [
        missing.length > 0 ? `message #${missing.join(", #")} of the host's list is neither sent nor quoted` : "",
        leftOut ? `turns ${leftOut[1]}-${leftOut[2]} left out of the summary block` : "",
        counts,
      ]
        .filter(Boolean)
        .join("; "),
    };
  return { clause: "user-messages", verdict: "kept", detail: `the host's user messages: ${counts}` };
}

function stubSizes(kept: readonly unknown[]): ContractReading[] {
  let stubs = 0;
  const longer: string[] = [];
  const underFloor: string[] = [];
  for (const m of kept) {
    for (const block of blocksOf(m)) {
      const text = block.text;
      if (typeof text !== "string") continue;
      const handle = parseStubHandle(text);
      if (!handle) continue;
      stubs++;
      const stated = STATED_SIZE.exec(text);
      if (!stated) continue;
      const original = number(stated[1]!);
      const short = handle.slice(17, 29);
      if (text.length >= original) longer.push(`a ${text.length}-char stub for ${original} chars (${short})`);
      if (roleOf(m) === "user" && original < USER_PART_STUB_FLOOR_CHARS)
        underFloor.push(`a ${original}-char user message part (${short})`);
    }
  }
  return [
    longer.length > 0
      ? { clause: "stub-size", verdict: "broken", detail: longer.join("; ") }
      : { clause: "stub-size", verdict: "kept", detail: `${stubs} stub(s), each shorter than what it stands for` },
    underFloor.length > 0
      ? { clause: "user-stub-floor", verdict: "broken", detail: `stubbed: ${underFloor.join("; ")}` }
      : {
          clause: "user-stub-floor",
          verdict: "kept",
          detail: `no user message part under ${USER_PART_STUB_FLOOR_CHARS.toLocaleString("en-US")} chars stubbed`,
        },
  ];
}

function oneSummary({ kept, summaryText }: AssembledPrompt): ContractReading {
  const isBlock = (m: unknown): boolean =>
    roleOf(m) === "compactionSummary" || (roleOf(m) !== "toolResult" && textOf(m).includes(SUMMARY_OPEN));
  let blocks = kept.filter(isBlock).length;
  if (summaryText && !kept.some((m) => textOf(m) === summaryText)) blocks++;
  return blocks > 1
    ? { clause: "one-summary", verdict: "broken", detail: `${blocks} summary blocks` }
    : { clause: "one-summary", verdict: "kept", detail: blocks === 1 ? "one summary block" : "no summary block" };
}

function handlesResolve(cited: readonly string[], isStored: (handle: string) => boolean): ContractReading {
  const missing = cited.filter((h) => !isStored(h));
  return missing.length > 0
    ? {
        clause: "handles-resolve",
        verdict: "broken",
        detail: `not in the store when the prompt was recorded: ${missing.map((h) => h.slice(17, 29)).join(", ")}`,
      }
    : { clause: "handles-resolve", verdict: "kept", detail: `${cited.length} handle(s) cited, each in the store` };
}

function toolPairs(kept: readonly unknown[]): ContractReading {
  const open = new Set<string>();
  const broken: string[] = [];
  let pairs = 0;
  for (const m of kept) {
    const role = roleOf(m);
    const resultOf = toolResultIdOf(m);
    if (role === "assistant") {
      for (const id of open) broken.push(`call ${id} has no result before the next assistant message`);
      open.clear();
      for (const id of toolCallIdsOf(m)) open.add(id);
    } else if (role === "toolResult") {
      if (resultOf === undefined || !open.delete(resultOf))
        broken.push(`result ${resultOf ?? "(no id)"} answers no open call`);
      else pairs++;
    } else if (open.size > 0 && !textOf(m).trimStart().startsWith(HOST_INTERNAL_CONTEXT_PREFIX)) {
      for (const id of open) broken.push(`call ${id} has no result before a ${role} message`);
      open.clear();
    }
  }
  return broken.length > 0
    ? { clause: "tool-pairs", verdict: "broken", detail: broken.join("; ") }
    : { clause: "tool-pairs", verdict: "kept", detail: `${pairs} call(s), each answered by its result` };
}
