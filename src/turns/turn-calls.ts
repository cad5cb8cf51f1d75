/**
 * The engine calls that hand the ledger finished messages (`ingest`, `ingestBatch`, `afterTurn`, `commitTurn`), each
 * as one commit of {@link commitTurnMessages} under the advancement key its host line implies.
 */
import { fingerprintMessage } from "../host/messages.js";
import { asList, asParams, type HostParams, type SessionIdentity } from "../host/normalize.js";
import { afterTurnKey, commitTurnMessages, type CommitTurnDeps, type CommitTurnResult } from "./commit-turn.js";

/** One call's params and the session it is about. */
export interface TurnCall {
  params: HostParams;
  identity: SessionIdentity;
}

/** What a call answers the host, and the fields of its event. */
export interface TurnCallOutcome<T> {
  result: T;
  event: Record<string, unknown>;
}

/** `ingest`: one message, keyed by the session, its fingerprint and its time. */
export async function ingestMessage(
  deps: CommitTurnDeps,
  { params, identity }: TurnCall,
): Promise<TurnCallOutcome<{ ingested: boolean }>> {
  const time = String(asParams(params.message).timestamp ?? "");
  const advancementKey = `ingest:${identity.sessionId}:${fingerprintMessage(params.message)}:${time}`;
  const { status } = await commitTurnMessages(deps, { identity, advancementKey, messages: [params.message] });
  return { result: { ingested: status === "committed" }, event: { status } };
}

/** `ingestBatch`: the messages, keyed by the session and their fingerprints. */
export async function ingestMessages(
  deps: CommitTurnDeps,
  { params, identity }: TurnCall,
): Promise<TurnCallOutcome<{ ingestedCount: number }>> {
  const messages = asList(params.messages);
  const advancementKey = `batch:${identity.sessionId}:${messages.map(fingerprintMessage).join(",")}`;
  const { status } = await commitTurnMessages(deps, { identity, advancementKey, messages });
  const ingestedCount = status === "committed" ? messages.length : 0;
  return { result: { ingestedCount }, event: { status, messages: messages.length } };
}

/** `afterTurn` (2026.4.24): the whole transcript, of which what lies past `prePromptMessageCount` is new. */
export async function ingestAfterTurn(
  deps: CommitTurnDeps,
  { params, identity }: TurnCall,
): Promise<TurnCallOutcome<undefined>> {
  const messages = asList(params.messages);
  const count = params.prePromptMessageCount;
  const pre = typeof count === "number" && count >= 0 ? Math.min(count, messages.length) : 0;
  const { status } = await commitTurnMessages(deps, {
    identity,
    advancementKey: afterTurnKey(identity.sessionId, pre, messages),
    messages,
    transcriptFrom: pre,
  });
  return { result: undefined, event: { status, messages: messages.length - pre } };
}

/** `commitTurn` (2026.5.28 onwards): the turn's messages under the host's own advancement key. */
export async function commitTurn(
  deps: CommitTurnDeps,
  { params, identity }: TurnCall,
): Promise<TurnCallOutcome<CommitTurnResult>> {
  const result = await commitTurnMessages(deps, {
    identity,
    advancementKey: params.advancementKey,
    messages: params.messages,
  });
  return { result, event: { status: result.status, messages: asList(params.messages).length } };
}
