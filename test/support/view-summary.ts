import { isSummaryMessage, textOf } from "../../src/host/messages.js";

/** The summary a view carries (the text of its summary message), or "" when it carries none. */
export function summaryOf(view: { messages: readonly unknown[] }): string {
  const message = view.messages.find(isSummaryMessage);
  return message ? textOf(message) : "";
}

/** The view's messages without its summary message: the conversation it keeps. */
export function conversationOf(view: { messages: readonly unknown[] }): unknown[] {
  return view.messages.filter((m) => !isSummaryMessage(m));
}
