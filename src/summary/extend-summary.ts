import { tryParseJson } from "../json.js";
import { blocksOf, roleOf, type LooseMessage } from "../host/messages.js";
import { genuineUserText } from "./user-turns.js";
import { redactSecrets } from "../results/redact.js";
import {
  ARTIFACT_STUB_PREFIX,
  clip,
  codesIn,
  decisionSentences,
  errorLines,
  errorSentences,
  exitCodeIn,
  factSentences,
  firstSentences,
  handlesIn,
  pathsIn,
  pushBounded,
  stripLedgerBlocks,
} from "./extract-facts.js";
import {
  ENTRY_LIMITS as L,
  messageFingerprint,
  type SummaryEntry,
  type SummaryState,
  type ToolRecord,
} from "./summary-state.js";

/**
 * Extends `state` to cover messages `[state.coveredCount, toIndex)` and
 * returns the new state (the input is not mutated). Cost is proportional to
 * the new range. A genuine user message opens a turn entry; assistant
 * messages and tool results join the open one, also across calls. The
 * engine's own blocks and the host's internal-context messages are skipped
 * (their indexes still count as covered), so summaries never nest.
 * Malformed messages are covered and otherwise ignored; never throws. `turnAt` numbers a turn by the
 * conversation's own count (see `alignUserTurns`), where the list no longer starts at turn 1.
 * Text is redacted (built-in rules) before facts are taken from it: the
 * record, its checkpoint packs and everything rendered from them hold no
 * secret a rule recognises, even where a fact (a path) loses its label.
 */
export function extendSummary(
  state: SummaryState,
  messages: readonly unknown[],
  toIndex: number,
  turnAt?: ReadonlyMap<number, number>,
): SummaryState {
  const to = Math.min(Math.floor(Number.isFinite(toIndex) ? toIndex : 0), messages.length);
  if (to <= state.coveredCount) return state;
  const entries = state.entries.slice();
  let open: SummaryEntry | undefined;
  const last = entries.at(-1);
  if (last && last.to === state.coveredCount) {
    open = cloneEntry(last);
    entries[entries.length - 1] = open;
  }
  let fingerprint = state.coveredFingerprint;
  for (let i = state.coveredCount; i < to; i++) {
    const message = messages[i];
    fingerprint = messageFingerprint(message);
    const role = roleOf(message);
    const userText = role === "user" ? genuineUserText(message) : undefined;
    if (userText !== undefined || !open) {
      open = newEntry(i);
      entries.push(open);
    }
    open.to = i + 1;
    open.endFingerprint = fingerprint;
    try {
      if (userText !== undefined) addUser(open, userText, turnAt?.get(i));
      else if (role === "assistant") addAssistant(open, message);
      else if (role === "toolResult") addToolResult(open, message as LooseMessage);
    } catch {
      // A message we cannot read is covered and skipped.
    }
  }
  const nextFingerprint = to < messages.length ? messageFingerprint(messages[to]) : null;
  return { ...state, coveredCount: to, coveredFingerprint: fingerprint, nextFingerprint, entries };
}

function newEntry(from: number): SummaryEntry {
  return {
    from,
    to: from,
    endFingerprint: "",
    decisions: [],
    facts: [],
    tools: [],
    toolsOmitted: 0,
    files: [],
    errors: [],
    handles: [],
  };
}

function cloneEntry(e: SummaryEntry): SummaryEntry {
  return {
    ...e,
    decisions: [...e.decisions],
    facts: [...e.facts],
    tools: e.tools.map((t) => ({ ...t })),
    files: [...e.files],
    errors: [...e.errors],
    handles: [...e.handles],
  };
}

function addProse(entry: SummaryEntry, text: string): void {
  pushBounded(entry.decisions, decisionSentences(text, L.lineChars), L.decisions);
  pushBounded(entry.facts, factSentences(text, L.lineChars), L.facts);
  pushBounded(entry.files, pathsIn(text), L.files);
  pushBounded(entry.handles, handlesIn(text), L.handles);
  pushBounded(entry.errors, [...codesIn(text), ...errorSentences(text, L.lineChars)], L.errors);
}

function addUser(entry: SummaryEntry, text: string, turn: number | undefined): void {
  entry.user = firstSentences(text, L.textChars);
  if (turn !== undefined) entry.turn = turn;
  addProse(entry, text);
}

function addAssistant(entry: SummaryEntry, message: unknown): void {
  const texts: string[] = [];
  for (const block of blocksOf(message)) {
    if (block.type === "text" && typeof block.text === "string") {
      const text = redactSecrets(stripLedgerBlocks(block.text)).trim();
      if (text) texts.push(text);
    } else if (block.type === "toolCall" || block.type === "tool_use" || block.type === "toolUse") {
      addToolCall(entry, block);
    }
  }
  const text = texts.join("\n");
  if (!text) return;
  entry.assistant = firstSentences(text, L.textChars);
  addProse(entry, text);
}

function addToolCall(entry: SummaryEntry, block: Record<string, unknown>): void {
  const name = typeof block.name === "string" && block.name ? clip(block.name, 64) : "tool";
  const { args, files } = keyArgs(block.arguments ?? block.input);
  pushBounded(entry.files, files, L.files);
  if (entry.tools.length >= L.tools) {
    entry.toolsOmitted++;
    return;
  }
  const record: ToolRecord = { name, outcome: "pending" };
  if (typeof block.id === "string") record.id = block.id;
  if (args) record.args = args;
  entry.tools.push(record);
}

function addToolResult(entry: SummaryEntry, message: LooseMessage): void {
  const id = typeof message.toolCallId === "string" ? message.toolCallId : undefined;
  let record = id === undefined ? undefined : entry.tools.findLast((t) => t.id === id);
  if (!record) {
    if (entry.tools.length >= L.tools) return;
    record = {
      name: typeof message.toolName === "string" && message.toolName ? clip(message.toolName, 64) : "tool",
      outcome: "pending",
    };
    if (id !== undefined) record.id = id;
    entry.tools.push(record);
  }
  const text = redactSecrets(
    blocksOf(message)
      .map((b) => (typeof b.text === "string" ? b.text : ""))
      .join("\n"),
  );
  const details =
    message.details && typeof message.details === "object" ? (message.details as Record<string, unknown>) : {};
  const exitCode =
    typeof details.exitCode === "number" && Number.isInteger(details.exitCode) ? details.exitCode : exitCodeIn(text);
  if (exitCode !== undefined) record.exitCode = exitCode;
  record.outcome = message.isError === true || (exitCode !== undefined && exitCode !== 0) ? "error" : "ok";
  const handles = handlesIn(text);
  if (text.trimStart().startsWith(ARTIFACT_STUB_PREFIX) && handles[0]) record.handle = handles[0];
  pushBounded(entry.handles, handles, L.handles);
  const codes = codesIn(text);
  if (record.outcome === "error" || codes.length > 0) {
    const lines = errorLines(text, 2, L.lineChars);
    if (lines[0]) record.error = lines[0];
    pushBounded(entry.errors, [...codes.slice(0, 4), ...lines], L.errors);
  }
}

const PATH_KEYS = /^(?:path|paths|file|files|file_?path|filename|dir|directory|cwd|target|source|dest|destination)$/i;
const KEY_ORDER =
  /^(?:command|cmd|script|path|paths|file|files|file_?path|filename|dir|directory|cwd|url|uri|href|query|q|pattern|search|glob|handle|selector|target|source|dest|destination)$/i;

/** Key arguments of a tool call (paths, commands, urls, queries), bounded, and the paths it touches. */
function keyArgs(raw: unknown): { args: string; files: string[] } {
  const value = typeof raw === "string" ? tryParseJson(raw) : raw;
  if (typeof raw === "string" && value === undefined) {
    const clean = redactSecrets(raw);
    return { args: clip(clean, L.argsChars), files: pathsIn(clean) };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { args: "", files: [] };
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const chosen = keys.filter((k) => KEY_ORDER.test(k));
  if (chosen.length === 0) chosen.push(...keys.filter((k) => typeof record[k] === "string").slice(0, 2));
  const parts: string[] = [];
  const files: string[] = [];
  for (const key of chosen) {
    const v = record[key];
    const values = (Array.isArray(v) ? v : [v])
      .filter((x): x is string | number | boolean => ["string", "number", "boolean"].includes(typeof x))
      .map((x) => (typeof x === "string" ? redactSecrets(`${key}=${x}`).slice(key.length + 1) : x));
    if (values.length === 0) continue;
    parts.push(`${key}=${clip(values.map(String).join(","), 120)}`);
    for (const item of values) {
      if (typeof item !== "string") continue;
      if (PATH_KEYS.test(key) && item.length <= 200) files.push(item);
      else files.push(...pathsIn(item));
    }
  }
  return { args: clip(parts.join(" "), L.argsChars), files: [...new Set(files)] };
}
