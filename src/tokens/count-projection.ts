/**
 * What of a host message the model sees, as the counter sizes it: a fixed
 * number of tokens (framing, images) plus the texts to count exactly.
 * Fields the host never sends to the model (`details`, `usage`, timestamps,
 * provider replay state, thinking signatures) are not counted.
 */
import { safeJson } from "../json.js";

/** Framing tokens per message (role and delimiters; OpenAI's rule of thumb is 3-4). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens priming the reply, added once per request by `countMessages`. */
export const REPLY_PRIMING_TOKENS = 3;
/** Framing tokens per tool call, on top of its name, id and arguments text. */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;
/** Estimate per image or other binary block (its data is never counted as text). */
export const IMAGE_TOKENS = 1600;
/** Wrapper text the host puts around a branch or compaction summary. */
const SUMMARY_WRAPPER_TOKENS = 40;
/** Wrapper text the host puts around a bash execution (command fence, exit code). */
const BASH_WRAPPER_TOKENS = 16;
/** A string field longer than this named `data` is a binary payload, not text. */
const BINARY_DATA_MIN_CHARS = 256;

/** The countable shape of one message. */
export interface MessageProjection {
  /** Tokens added by rule (framing, images). */
  fixed: number;
  /** Texts whose exact BPE counts are added. */
  texts: string[];
}

/** Rules a projection follows. */
export interface ProjectionRules {
  /** Tokens per image or binary block. @default 1600 */
  imageTokens: number;
}

const TOOL_CALL_TYPES: ReadonlySet<string> = new Set([
  "toolCall",
  "tool_use",
  "toolUse",
  "functionCall",
  "function_call",
]);
const IMAGE_TYPES: ReadonlySet<string> = new Set(["image", "image_url", "input_image"]);
const CONTENT_ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system", "developer", "custom"]);

/**
 * The projection of `message`. Never throws: a part that cannot be read
 * (throwing getters, revoked proxies) contributes nothing, a cycle is cut.
 * Unknown roles and non-objects are counted by their JSON ("countUnknown").
 */
export function projectMessage(
  message: unknown,
  rules: ProjectionRules = { imageTokens: IMAGE_TOKENS },
): MessageProjection {
  const out: MessageProjection = { fixed: MESSAGE_OVERHEAD_TOKENS, texts: [] };
  skipUnreadable(() => projectInto(out, message, rules));
  return out;
}

function projectInto(out: MessageProjection, message: unknown, rules: ProjectionRules): void {
  if (!isRecord(message)) {
    addUnknown(out, message);
    return;
  }
  const role = message.role;
  if (role === "toolResult") {
    addString(out, message.toolName);
    addString(out, message.toolCallId);
    addContent(out, message.content, rules);
  } else if (role === "bashExecution") {
    out.fixed += BASH_WRAPPER_TOKENS;
    addString(out, message.command);
    addString(out, message.output);
  } else if (role === "branchSummary" || role === "compactionSummary") {
    out.fixed += SUMMARY_WRAPPER_TOKENS;
    addString(out, message.summary);
  } else if (typeof role === "string" && CONTENT_ROLES.has(role)) {
    addContent(out, message.content, rules);
  } else {
    addUnknown(out, message);
  }
}

function addContent(out: MessageProjection, content: unknown, rules: ProjectionRules): void {
  if (content === undefined || content === null) return;
  if (typeof content === "string") {
    out.texts.push(content);
    return;
  }
  if (!Array.isArray(content)) {
    addUnknown(out, content);
    return;
  }
  for (const block of content) skipUnreadable(() => addBlock(out, block, rules));
}

function addBlock(out: MessageProjection, block: unknown, rules: ProjectionRules): void {
  if (block === undefined || block === null) return;
  if (typeof block === "string") {
    out.texts.push(block);
    return;
  }
  if (!isRecord(block)) {
    addUnknown(out, block);
    return;
  }
  const type = block.type;
  if (type === "text" || (type === undefined && typeof block.text === "string")) {
    addString(out, block.text);
  } else if (type === "thinking") {
    addString(out, block.thinking);
  } else if (typeof type === "string" && TOOL_CALL_TYPES.has(type)) {
    out.fixed += TOOL_CALL_OVERHEAD_TOKENS;
    addString(out, block.name);
    addString(out, block.id);
    const args = block.arguments ?? block.input ?? block.args;
    if (typeof args === "string") out.texts.push(args);
    else if (args !== undefined) addUnknown(out, args);
  } else if (typeof type === "string" && IMAGE_TYPES.has(type)) {
    out.fixed += rules.imageTokens;
  } else if (typeof block.data === "string" && block.data.length >= BINARY_DATA_MIN_CHARS) {
    // Audio, files, documents: the payload is an estimate, the rest is text.
    out.fixed += rules.imageTokens;
    addUnknown(out, { ...block, data: `[${block.data.length} chars]` });
  } else {
    addUnknown(out, block);
  }
}

function addString(out: MessageProjection, value: unknown): void {
  if (typeof value === "string") out.texts.push(value);
}

/** countUnknown: anything we do not know is counted as its JSON text (errs upward). */
function addUnknown(out: MessageProjection, value: unknown): void {
  const json = typeof value === "string" ? value : safeJson(value);
  if (json.length > 0) out.texts.push(json);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function skipUnreadable(fn: () => void): void {
  try {
    fn();
  } catch {
    // An unreadable part counts as nothing; the rest of the message still counts.
  }
}
