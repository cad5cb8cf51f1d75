import { blocksOf, hasToolCall, isSummaryMessage, roleOf, textOf } from "./messages.js";

/** The chat command context-ledger registers: `/ledger status`, `/ledger view`, `/ledger fetch …`. */
export const LEDGER_COMMAND = "ledger";

// A user message as the host stores it may lead with envelope brackets (a timestamp, a channel tag). Anchored and
// matched in place (no trimmed copy): the check reads only a message's first characters.
const COMMAND_TEXT = new RegExp(String.raw`^\s*(?:\[[^\]\n]*\]\s*)*/${LEDGER_COMMAND}(?:\s|$)`);

const isCommandText = (text: string): boolean => COMMAND_TEXT.test(text);

/** True when `message` is a user's `/ledger …` command (the plugin answers it; the model never does). */
export function isLedgerCommand(message: unknown): boolean {
  return roleOf(message) === "user" && isCommandText(textOf(message));
}

function excludedByHost(message: unknown): boolean {
  return (message as { excludeFromContext?: unknown } | null)?.excludeFromContext === true;
}

/**
 * A user message without its `/ledger` commands: the message itself when it has none,
 * undefined when it holds nothing else. 2026.9.6 hands the engine consecutive commands
 * merged into one user message, a text block each (their replies removed between them).
 */
function withoutCommands(message: unknown): unknown {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return isCommandText(content) ? undefined : message;
  if (!Array.isArray(content)) return isLedgerCommand(message) ? undefined : message;
  // Every assemble walks the whole history: a message without a command costs no allocation.
  if (
    !content.some(
      (b) => typeof (b as { text?: unknown } | null)?.text === "string" && isCommandText((b as { text: string }).text),
    )
  )
    return message;
  const blocks = blocksOf(message);
  const kept = blocks.filter((b) => !(typeof b.text === "string" && isCommandText(b.text)));
  if (kept.every((b) => typeof b.text === "string" && b.text.trim() === "")) return undefined;
  return { ...(message as object), content: kept };
}

/**
 * The history without what was said to the operator, not the model, nor what the engine
 * itself put in an earlier view (its summary message, which 2026.9.x hands back inside a
 * turn): messages the host marks `excludeFromContext` (2026.9.x's own context-free commands), and each `/ledger`
 * command with the replies that follow it up to the next user message (assistant text
 * without tool calls: a command runs no model, so such text is the plugin's reply, which
 * 2026.9.6 stores as a `gateway-injected` assistant message). Status, view and fetch
 * replies are for the operator; shown to the model they would cost tokens each turn and
 * could carry fetched output the model never asked for. A command never starts a model
 * run, so it is never the live turn. Same objects and order otherwise.
 */
export function withoutOperatorMessages(messages: readonly unknown[]): unknown[] {
  // Every assemble walks the whole history, which almost never holds operator text: nothing is copied until the
  // first message that goes.
  let droppingReplies = false;
  let out: unknown[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const role = roleOf(m);
    let kept: unknown = m;
    if (excludedByHost(m) || isSummaryMessage(m)) kept = undefined;
    else if (role === "user") {
      kept = withoutCommands(m);
      droppingReplies = kept === undefined;
    } else {
      if (role !== "assistant" || hasToolCall(m)) droppingReplies = false;
      if (droppingReplies) kept = undefined;
    }
    if (kept === m) {
      out?.push(m);
      continue;
    }
    out ??= messages.slice(0, i);
    if (kept !== undefined) out.push(kept);
  }
  return out ?? (messages as unknown[]);
}
