/**
 * A real gateway whose artifact store is a bucket on a throwaway Ceph RGW (`test/support/s3-fixture.ts`): its
 * plugin config, what it captured, what the bucket holds of it, a restart on an empty local store, and a turn
 * that fetches chosen lines of chosen handles through `ledger_fetch` (via Tool Search's `tool_call` where the
 * host hides plugin tools).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { createS3Backend } from "../../src/artifacts/backends/s3-backend.js";
import { blobKey, hexOfBlobKey, metaKey } from "../../src/artifacts/format/store-keys.js";
import { artifactRoot } from "../../src/state/paths.js";
import type { RgwFixture } from "../support/s3-fixture.js";
import type { HostEnv } from "./host-env.js";
import type { HostVersion } from "./host-install.js";
import { readPluginEvents } from "./logs.js";
import type { MockReply, MockRequest, MockToolCall } from "./mock-model.js";
import { hasToolResultInCurrentTurn } from "./mock-scripts.js";
import { isInternalContextMessage, textOfMessage } from "./mock-wire.js";
import { fetchAnswerText } from "./scenarios/fetch-back.js";
import type { ScenarioSession } from "./scenarios/scenario.js";
import { startSharedRig, type SharedRig } from "./scenarios/shared-rig.js";

/** The environment variables the gateway's config names for the RGW user's keys. */
export const S3_KEY_ENV = "LEDGER_HOST_S3_KEY";
export const S3_SECRET_ENV = "LEDGER_HOST_S3_SECRET";

/** The agent every S3 gateway scenario runs on. */
const AGENT = "main";

/** context-ledger's plugin config for a gateway storing under `prefix` of the fixture's bucket. */
export function s3LedgerConfig(fixture: RgwFixture, prefix: string): Record<string, unknown> {
  return {
    store: {
      backend: "s3",
      spoolBytes: 256 * 1024 * 1024,
      cacheBytes: 256 * 1024 * 1024,
      s3: {
        endpoint: fixture.rgw.endpoint,
        bucket: fixture.bucket,
        prefix,
        region: fixture.rgw.region,
        pathStyle: true,
        accessKeyIdEnv: S3_KEY_ENV,
        signingKeyEnv: S3_SECRET_ENV,
        timeoutMs: 10_000,
      },
    },
  };
}

/**
 * Starts a gateway of `version` with context-ledger storing under `prefix` of the fixture's bucket. The
 * keys reach it through the environment, as an operator's would (the host env copies this process's).
 */
export async function startS3Gateway(
  fixture: RgwFixture,
  prefix: string,
  version: HostVersion = "2026.9.6",
): Promise<SharedRig> {
  process.env[S3_KEY_ENV] = fixture.rgw.accessKeyId;
  process.env[S3_SECRET_ENV] = fixture.rgw.secretAccessKey;
  return startSharedRig({ version, engine: "context-ledger", ledgerConfig: s3LedgerConfig(fixture, prefix) });
}

/** context-ledger's state folder of a host env. */
export function ledgerRootOf(env: HostEnv): string {
  return path.join(env.stateDir, "context-ledger");
}

/** Every handle the gateway's capture hook stashed (its `capture` events), in order, without repeats. */
export async function capturedHandles(env: HostEnv): Promise<string[]> {
  const handles = (await readPluginEvents(env)).filter((e) => e.op === "capture").map((e) => String(e.handle));
  return [...new Set(handles)];
}

/** The fields of a stored meta the tests read. */
export interface StoredMeta {
  kind: string;
  bytes: number;
  origin?: { toolName?: string; toolCallId?: string; sessionKey?: string };
}

/** The agent's objects under `prefix` of the fixture's bucket, read directly. */
export function bucketView(fixture: RgwFixture, prefix: string) {
  const backend = createS3Backend(fixture.options(`${prefix}/agents/${AGENT}`));
  const hexOf = (handle: string) => handle.slice(-64);
  return {
    /** The handles whose blob or meta is not in the bucket. */
    async missing(handles: readonly string[]): Promise<string[]> {
      const out: string[] = [];
      for (const h of handles) {
        const [blob, meta] = await Promise.all([backend.head(blobKey(hexOf(h))), backend.head(metaKey(hexOf(h)))]);
        if (!blob || !meta) out.push(h);
      }
      return out;
    },
    /** The stored meta of a blob key (`kind` is `tool-output` for a capture), or undefined. */
    async metaOf(blob: string): Promise<StoredMeta | undefined> {
      const hex = hexOfBlobKey(blob);
      const meta = hex === undefined ? undefined : await backend.getRange(metaKey(hex), 0);
      return meta === undefined ? undefined : (JSON.parse(meta.toString("utf8")) as StoredMeta);
    },
    /** The keys of every stored blob. */
    async blobs(): Promise<{ key: string; modifiedMs: number }[]> {
      const out: { key: string; modifiedMs: number }[] = [];
      for await (const o of backend.list("blobs/")) out.push({ key: o.key, modifiedMs: o.modifiedMs });
      return out;
    },
  };
}

/**
 * Stops the gateway, removes its agent's local artifact folder (spool, cache, gateway id), and starts it again:
 * a gateway redeployed on an empty disk for the store, with its transcripts and ledger state kept.
 */
export async function restartOnEmptyStore(shared: SharedRig): Promise<void> {
  await shared.rig.gateway.stop();
  await fsp.rm(artifactRoot(ledgerRootOf(shared.rig.env), AGENT), { recursive: true, force: true });
  await shared.rig.restartGateway();
}

/** One line range of one handle to fetch. */
export interface FetchWant {
  handle: string;
  from: number;
  to: number;
}

const FETCH_WANT = /(ledger:v1:sha256:[0-9a-f]{64}) lines (\d+)-(\d+)/g;

/** The user message that asks for `wants`; {@link fetchTurnReply} reads them back from it. */
export function fetchMessage(wants: readonly FetchWant[]): string {
  return `Fetch: ${wants.map((w) => `${w.handle} lines ${w.from}-${w.to}`).join("; ")}`;
}

/** `ledger_fetch` with `args`: directly where the host offers it, else through Tool Search's `tool_call`. */
export function fetchCall(request: MockRequest, args: Record<string, unknown>): MockToolCall {
  return request.toolNames.includes("ledger_fetch")
    ? { name: "ledger_fetch", args }
    : { name: "tool_call", args: { id: "ledger_fetch", args } };
}

/**
 * The reply to a turn whose message came from {@link fetchMessage}: one fetch call per range, then a short
 * answer once the results are in. Undefined for any other turn.
 */
export function fetchTurnReply(request: MockRequest): MockReply | undefined {
  if (!request.userText.includes("Fetch: ")) return undefined;
  if (hasToolResultInCurrentTurn(request.messages)) return { text: "Fetched." };
  const calls = [...request.userText.matchAll(FETCH_WANT)].map((m) =>
    fetchCall(request, { handle: m[1], lines: `${m[2]}-${m[3]}` }),
  );
  return { toolCalls: calls };
}

/** The text of every tool message after the newest genuine user message. */
function toolTextsInCurrentTurn(messages: readonly unknown[]): string[] {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown } | undefined;
    if (m?.role === "tool") out.unshift(textOfMessage(m));
    else if (m?.role === "user" && !isInternalContextMessage(m)) break;
  }
  return out;
}

/**
 * Sends one {@link fetchMessage} turn and returns, per wanted handle, the text the model received (the fetch
 * header stripped), or undefined when no answer named it.
 */
export async function fetchThroughGateway(
  session: ScenarioSession,
  wants: readonly FetchWant[],
): Promise<Map<string, string | undefined>> {
  const before = session.requests().length;
  const turn = await session.chatSend(fetchMessage(wants));
  if (turn.wait.status !== "ok") throw new Error(`Expected the fetch turn to end ok, got ${JSON.stringify(turn.wait)}`);
  const withResults = session
    .requests()
    .slice(before)
    .find((r) => hasToolResultInCurrentTurn(r.messages));
  const answers = (withResults ? toolTextsInCurrentTurn(withResults.messages) : []).map(fetchAnswerText);
  const out = new Map<string, string | undefined>();
  for (const w of wants) {
    const answer = answers.find((a) => a.startsWith(`[context-ledger fetch ${w.handle} `));
    out.set(w.handle, answer?.slice(answer.indexOf("\n") + 1));
  }
  return out;
}
