import { agentIdFromSessionKey } from "../host/normalize.js";
import { LEDGER_COMMAND } from "../host/messages.js";
import { errorMessage } from "../errors.js";
import { commandsOn } from "../cli/command-table.js";
import { closestWord } from "../cli/core/closest-word.js";
import type { ChatCommandDeps } from "../cli/core/chat-request.js";

export type { ChatCommandDeps } from "../cli/core/chat-request.js";

/** The command name: `/ledger ...` in any chat. */
export const CHAT_COMMAND_NAME = LEDGER_COMMAND;

/** What the host passes a plugin command handler (the fields this command reads). */
export interface ChatCommandContext {
  agentId?: string;
  sessionKey?: string;
  args?: string;
  /** The host config the gateway runs with (every supported line passes it): does the slot select this engine. */
  config?: Record<string, unknown>;
}

/** The reply: text for the chat. */
export interface ChatCommandReply {
  text: string;
}

const COMMANDS = commandsOn("chat");
const NAMES = [...COMMANDS.keys()];

/** The chat's help: one line per command of the table that runs in a chat. */
const CHAT_HELP = [
  "context-ledger in chat:",
  ...[...COMMANDS.values()].map(
    (c) => `  /ledger ${c.args.padEnd(26)}${c.summary.replaceAll("\n", `\n${" ".repeat(36)}`)}`,
  ),
].join("\n");

/** `/ledger status | view | fetch HANDLE lines A-B`: the host's one-line description of the command. */
export const CHAT_DESCRIPTION = `context-ledger: /ledger ${[...COMMANDS.values()].map((c) => c.args).join(" | ")}`;

/**
 * Answers `/ledger <command>` for the current session from the ledger's own state, running the command
 * table's chat handler. Never throws: errors become text.
 */
export async function runChatCommand(deps: ChatCommandDeps, ctx: ChatCommandContext): Promise<ChatCommandReply> {
  const [sub, ...words] = (ctx.args ?? "").trim().split(/\s+/).filter(Boolean);
  // Never another agent's state: a chat whose agent cannot be told gets no answer from any store.
  const agentId = ctx.agentId || agentIdFromSessionKey(ctx.sessionKey);
  try {
    if (!sub || sub === "help") return { text: CHAT_HELP };
    const command = COMMANDS.get(sub);
    if (!command) {
      const near = closestWord(sub, NAMES);
      const expected = `${NAMES.slice(0, -1).join(", ")} or ${NAMES.at(-1)}`;
      return {
        text: `Unknown /ledger command \`${sub}\`; expected ${expected}.${near ? ` Did you mean \`/ledger ${near}\`?` : ""}\n${CHAT_HELP}`,
      };
    }
    if (!agentId) return { text: `/ledger ${sub}: this chat names no agent (no agent id, no agent:<id>: session key)` };
    const run = await command.load();
    return { text: await run(deps, { agentId, sessionKey: ctx.sessionKey, words, hostConfig: ctx.config }) };
  } catch (err) {
    return { text: `/ledger ${sub}: ${errorMessage(err)}` };
  }
}
