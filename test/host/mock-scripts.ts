import process from "node:process";
import type { MockReply, MockRequest, MockScript, MockToolCall } from "./mock-model.js";
import { isInternalContextMessage } from "./mock-wire.js";

/** Options for {@link toolTurnScript}. */
export interface ToolTurnScriptOptions {
  /** The tool call to make in a turn, or undefined for a text-only turn. */
  call: (request: MockRequest) => MockToolCall | undefined;
  /** The final answer of a turn (after the tool result). */
  answer: (request: MockRequest) => string;
}

/** The hosts' silent-reply token (`SILENT_REPLY_TOKEN` on every line): "nothing to say", never shown. */
export const SILENT_REPLY = "NO_REPLY";

/**
 * Each turn: one tool call, then (once a tool result follows the turn's user
 * message) a text answer. Requests without tools (host summaries, titles) get
 * a short text. A run that offers tools but not the turn's tool (the host's
 * pre-compaction memory flush offers only read and write, and says "usually
 * NO_REPLY is correct") gets the silent reply: like a real model, the mock never
 * calls a tool it was not offered. Never loops: the decision looks at the
 * messages, not at how many requests came before, and the per-turn cap backs it up.
 */
export function toolTurnScript(options: ToolTurnScriptOptions): MockScript {
  return (request) => {
    if (request.toolNames.length === 0)
      return { text: `Summary of the conversation so far (request ${request.index}).` };
    const call = options.call(request);
    // 2026.5.28 ends the whole user turn when the flush run's call fails ("memory flush produced visible error
    // payloads").
    if (call && !request.toolNames.includes(call.name)) return { text: SILENT_REPLY };
    if (call && !hasToolResultInCurrentTurn(request.messages)) return { toolCalls: [call] };
    return { text: options.answer(request) };
  };
}

/** The tool results after the newest genuine user message (the current turn's), oldest first, as text. */
export function toolResultsInCurrentTurn(messages: readonly unknown[]): string[] {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | undefined;
    if (m?.role === "tool") out.unshift(typeof m.content === "string" ? m.content : JSON.stringify(m.content));
    else if (m?.role === "user" && !isInternalContextMessage(m)) break;
  }
  return out;
}

/** True when a tool result follows the newest genuine user message. */
export function hasToolResultInCurrentTurn(messages: readonly unknown[]): boolean {
  return toolResultsInCurrentTurn(messages).length > 0;
}

/**
 * A shell command that prints exactly `chars` characters of varied, log-like
 * lines (realistic for tokenizers: no long runs of one character).
 * @param nodePath the node binary the exec tool runs. @default process.execPath
 */
export function printCharsCommand(chars: number, nodePath: string = process.execPath): string {
  const js =
    `const n=${chars};let s='';` +
    `for(let i=0;s.length<n;i++)s+='row '+i+' status='+(i%17?'ok':'retry')+' latency_ms='+(i*7919%1000)+` +
    `' path=/srv/app/mod'+(i%97)+'/file'+(i%13)+'.ts sum='+(i*2654435761%4294967296).toString(16)+'\\n';` +
    `process.stdout.write(s.slice(0,n))`;
  return `${nodePath} -e "${js}"`;
}

/** The exact bytes {@link printCharsCommand} prints, for lossless checks. */
export function printedChars(chars: number): string {
  let s = "";
  for (let i = 0; s.length < chars; i++) {
    s += `row ${i} status=${i % 17 ? "ok" : "retry"} latency_ms=${(i * 7919) % 1000} path=/srv/app/mod${i % 97}/file${i % 13}.ts sum=${((i * 2654435761) % 4294967296).toString(16)}\n`;
  }
  return s.slice(0, chars);
}

const WORDS = [
  "the",
  "build",
  "passed",
  "after",
  "we",
  "moved",
  "cache",
  "layer",
  "into",
  "worker",
  "pool",
  "and",
  "logs",
  "show",
  "latency",
  "dropped",
  "while",
  "retry",
  "budget",
  "stayed",
  "within",
  "limits",
  "for",
  "each",
  "shard",
];

/** Deterministic prose of exactly `chars` characters; `seed` varies it per turn. */
export function longText(chars: number, seed = 0): string {
  let s = `Answer ${seed}: `;
  for (let i = 0; s.length < chars; i++) {
    const w = WORDS[(i * 7 + seed * 13 + (i >> 3)) % WORDS.length] ?? "x";
    s += i % 12 === 11 ? `${w} (${seed}.${i}).\n` : `${w} `;
  }
  return s.slice(0, chars);
}

/** Options for {@link execTurnScript}. */
export interface ExecTurnScriptOptions {
  /** Characters the exec command prints each turn. */
  outputChars: number;
  /** Characters of the final answer each turn. */
  answerChars: number;
  /** Tool name. @default "exec" */
  toolName?: string;
  /** Node binary used in the command. @default process.execPath */
  nodePath?: string;
}

/** Each turn: `exec` printing `outputChars` chars, then an `answerChars`-char answer. */
export function execTurnScript(options: ExecTurnScriptOptions): MockScript {
  const command = printCharsCommand(options.outputChars, options.nodePath);
  return toolTurnScript({
    call: () => ({ name: options.toolName ?? "exec", args: { command } }),
    answer: (r) => longText(options.answerChars, r.turn),
  });
}

/** Options for {@link fetchOnTurnScript}. */
export interface FetchOnTurnScriptOptions {
  /** The turn (1-based, as the mock counts) that calls the fetch tool instead. */
  turn: number;
  /** Arguments of the call (computed late: e.g. a handle read from the plugin's state). */
  args: (request: MockRequest) => Record<string, unknown>;
  /** Script for every other turn. */
  otherwise: MockScript;
  /** Tool name. @default "ledger_fetch" */
  toolName?: string;
  /** Final answer of the fetch turn. @default a short text */
  answer?: (request: MockRequest) => string;
}

/** On one chosen turn, calls `ledger_fetch` (or another tool) with given args; otherwise delegates. */
export function fetchOnTurnScript(options: FetchOnTurnScriptOptions): MockScript {
  const fetchTurn = toolTurnScript({
    call: (r) => ({ name: options.toolName ?? "ledger_fetch", args: options.args(r) }),
    answer: options.answer ?? ((r) => `Fetched what I needed (turn ${r.turn}).`),
  });
  return (request): MockReply => (request.turn === options.turn ? fetchTurn(request) : options.otherwise(request));
}
