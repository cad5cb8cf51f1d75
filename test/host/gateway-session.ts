import { startGateway, type Gateway } from "./gateway.js";
import { createHostEnv, type EngineChoice, type HostEnv } from "./host-env.js";
import type { HostVersion } from "./host-install.js";
import { countHostLogSignals, countResetRepliesInTranscripts, readHostLog, type HostLogSignals } from "./logs.js";
import {
  startMockModel,
  type MockModel,
  type MockModelOptions,
  type MockRequest,
  type MockScript,
} from "./mock-model.js";
import { stopAllGroups } from "./processes.js";
import { turnMessage } from "./workloads.js";

/** Everything one real-host test file needs: mock model, isolated env, one gateway. */
export interface HostRig {
  mock: MockModel;
  env: HostEnv;
  /** The running gateway (a new one after {@link HostRig.restartGateway}). */
  readonly gateway: Gateway;
  /** Stops the gateway and starts it again on the same state, as an operator restarts it. */
  restartGateway(): Promise<void>;
  /** Stops the gateway and the mock, removes the temp state. Safe to call twice. */
  close(): Promise<void>;
}

/** Options for {@link startHostRig}. */
export interface HostRigOptions {
  version: HostVersion;
  engine: EngineChoice;
  script: MockScript;
  contextWindow: number;
  /** The model's `maxTokens`. @default 4096 */
  maxTokens?: number;
  /** Further mock model options (request caps, partitioning). */
  mock?: Omit<MockModelOptions, "script">;
  /** `plugins.entries["context-ledger"].config`. */
  ledgerConfig?: Record<string, unknown>;
  /** Deep-merged over the generated config; a function gets the started mock (its port). */
  extraConfig?: Record<string, unknown> | ((mock: MockModel) => Record<string, unknown>);
}

/**
 * Starts the mock model, an isolated host env and one gateway (reuse it for the whole
 * test file: gateway start is the slow part). Call `close()` in `afterAll`; on a
 * failed start everything already started is stopped before the error propagates.
 */
export async function startHostRig(options: HostRigOptions): Promise<HostRig> {
  const mock = await startMockModel({ ...options.mock, script: options.script });
  let env: HostEnv | undefined;
  try {
    env = await createHostEnv({
      version: options.version,
      baseUrl: mock.baseUrl,
      modelId: mock.modelId,
      engine: options.engine,
      contextWindow: options.contextWindow,
      maxTokens: options.maxTokens,
      ledgerConfig: options.ledgerConfig,
      extraConfig: typeof options.extraConfig === "function" ? options.extraConfig(mock) : options.extraConfig,
    });
    let gateway = await startGateway(env);
    let closed = false;
    const rigEnv = env;
    return {
      mock,
      env: rigEnv,
      get gateway() {
        return gateway;
      },
      async restartGateway() {
        await gateway.stop();
        gateway = await startGateway(rigEnv);
      },
      async close() {
        if (closed) return;
        closed = true;
        await gateway.stop();
        await stopAllGroups();
        await mock.close();
        await rigEnv.cleanup();
      },
    };
  } catch (error) {
    await stopAllGroups();
    await mock.close();
    await env?.cleanup();
    throw error;
  }
}

/** What one chat turn did, as seen from outside the host. */
export interface TurnRecord {
  turn: number;
  /** Wall time of chat.send until the run settled. */
  ms: number;
  /** `agent.wait` status (`ok`, `error`, `timeout`). */
  status: string;
  /** Model requests made during this turn. */
  requests: MockRequest[];
  /** Host log signal counts after this turn (cumulative). */
  signals: HostLogSignals;
  /** Reset replies stored in JSONL transcripts after this turn (cumulative; 2026.4.24). */
  resetReplies: number;
  /** The host queued the message behind running work (see `ChatTurn.queued`). */
  queued?: boolean;
}

/** Options for {@link runChatTurns}. */
export interface RunChatTurnsOptions {
  /** Turns to run at most. */
  turns: number;
  /** Session key. @default "agent:main:main" */
  sessionKey?: string;
  /** Stop early once this returns true for the latest record. */
  stopWhen?: (record: TurnRecord, all: TurnRecord[]) => boolean;
  /** Called after each turn (progress output). */
  onTurn?: (record: TurnRecord) => void;
}

/** Drives numbered user turns through `chat.send` on the rig's gateway, recording each. */
export async function runChatTurns(rig: HostRig, options: RunChatTurnsOptions): Promise<TurnRecord[]> {
  const sessionKey = options.sessionKey ?? "agent:main:main";
  const records: TurnRecord[] = [];
  for (let turn = 1; turn <= options.turns; turn++) {
    const before = rig.mock.requests.length;
    const result = await rig.gateway.chatSend(sessionKey, turnMessage(turn));
    const log = await readHostLog(rig.env);
    const record: TurnRecord = {
      turn,
      ms: result.ms,
      status: String(result.wait.status ?? "unknown"),
      requests: rig.mock.requests.slice(before),
      signals: countHostLogSignals(log),
      resetReplies: await countResetRepliesInTranscripts(rig.env),
    };
    records.push(record);
    options.onTurn?.(record);
    if (options.stopWhen?.(record, records)) break;
  }
  return records;
}

/** A one-line progress/report row for a turn. */
export function formatTurn(r: TurnRecord): string {
  const bytes = r.requests.map((q) => q.messageBytes);
  return (
    `turn ${r.turn}: ${r.status} ${(r.ms / 1000).toFixed(1)}s requests=${r.requests.length} ` +
    `messageBytes=[${bytes.join(",")}] precheck=${r.signals.precheck} overflow=${r.signals.overflowDetected} ` +
    `compactionFailed=${r.signals.compactionFailed} restarts=${r.signals.sessionRestarted} resetReplies=${r.resetReplies}${r.queued ? " (queued behind running work)" : ""}`
  );
}
