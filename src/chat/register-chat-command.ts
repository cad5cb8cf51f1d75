import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import {
  CHAT_COMMAND_NAME,
  CHAT_DESCRIPTION,
  runChatCommand,
  type ChatCommandContext,
  type ChatCommandDeps,
} from "./ledger-command.js";

// register() runs once per agent context and on hot reload, each time with an api bound to a
// registry; registering twice on the same api would be refused by the host ("already registered").
const registered = new WeakSet<object>();

/** Registers `/ledger status | view | fetch` through the host's plugin command API, once per api object. */
export function registerChatCommand(api: OpenClawPluginApi, deps: ChatCommandDeps): void {
  if (typeof api.registerCommand !== "function" || registered.has(api)) return;
  registered.add(api);
  api.registerCommand({
    name: CHAT_COMMAND_NAME,
    description: CHAT_DESCRIPTION,
    acceptsArgs: true,
    handler: async (ctx: ChatCommandContext) => runChatCommand(deps, ctx),
  });
}
