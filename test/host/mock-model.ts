import http from "node:http";
import type { AddressInfo } from "node:net";
import { isInternalContextMessage, textOfMessage, type MockReply } from "./mock-wire.js";
import { loadTokenCounter } from "./token-count.js";
import { createWireEndpoint, WIRES, wireOfPath, type WireEndpoint, type WireName, type WireUsage } from "./wires.js";

export type { MockReply, MockToolCall } from "./mock-wire.js";
export type { WireName } from "./wires.js";

/** One model request as the host sent it, on any wire. */
export interface MockRequest {
  /** 0-based position among all requests. */
  index: number;
  /** 1-based turn, counted by distinct genuine user messages (0 when none yet). */
  turn: number;
  /** 0-based position of this request within its turn. */
  indexInTurn: number;
  /** The wire it came on (its path). */
  wire: WireName;
  /** The request path, and its headers as Node read them (lower-case names). */
  path?: string;
  headers?: Record<string, string | string[] | undefined>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** The request as chat-completions messages (`body.messages` on that wire; see `wires.ts` for the others). */
  messages: unknown[];
  /** The last message of `messages`. */
  lastMessage: unknown;
  /** Text of the newest genuine user message (the host's internal-context messages skipped). */
  userText: string;
  /** Names of the tools offered. */
  toolNames: string[];
  /** Size of the raw request body in bytes. */
  bytes: number;
  /** Size of `JSON.stringify(messages)` in bytes. */
  messageBytes: number;
  /** True when the reply was forced to plain text by a request cap. */
  capped: boolean;
  /**
   * The partition (scenario) the request was routed to; `turn`/`indexInTurn` count within it. "" when unpartitioned.
   */
  partition: string;
  /** With {@link MockModelOptions.strict}: the error answered instead of a reply (OpenAI's code, else its message). */
  rejected?: string;
  /** With `strict.enforce: false`: the rule the request broke, answered anyway (OpenAI's code, else its message). */
  violation?: string;
  /**
   * With {@link MockModelOptions.strict}: prompt tokens counted with a real BPE, the cached share of them, and the
   * tokens written to the cache (Anthropic's wire).
   */
  usage?: WireUsage;
  /** What the mock answered (set once the script chose it; absent for a rejected request). */
  reply?: MockReply;
}

/** Chooses the reply for one request. */
export type MockScript = (request: MockRequest) => MockReply;

/** Options for {@link startMockModel}. */
export interface MockModelOptions {
  /** Reply chooser; may be replaced later with `setScript`. @default always a short text */
  script?: MockScript;
  /** Model id reported by `/v1/models`. @default "mock-model" */
  modelId?: string;
  /** After this many requests in one turn, answer plain text (breaks tool loops). @default 6 */
  maxRequestsPerTurn?: number;
  /** After this many requests in total, answer plain text. @default 400 */
  maxRequestsTotal?: number;
  /** Prompt tokens reported in `usage`. @default ceil(message bytes / 4) */
  promptTokens?: (request: MockRequest) => number;
  /**
   * Routes a request to a partition (one scenario on a shared gateway) from the newest
   * genuine user message's text (undefined when there is none); turns are counted per
   * partition. @default everything in one partition ""
   */
  partition?: (userText: string | undefined) => string;
  /**
   * Answer as a strict OpenAI endpoint with this context window does ({@link createOpenAIRules}): a request
   * over the window or with unpaired tool messages gets OpenAI's 400 error (and `rejected`), and usage reports
   * real BPE prompt tokens and prefix-cached tokens; with `enforce: false` it answers every request and only
   * names the rule one broke (`violation`). Each wire has its provider's rules (`wires.ts`); `wires` limits
   * strictness to some of them. `windows` gives other models' windows by the model id a request names
   * (`body.model`); each such model has endpoints of its own (its own prefix cache, as a provider caches
   * per model). @default lenient: any request is answered, bytes/4 usage
   */
  strict?: {
    contextWindow: number;
    windows?: Readonly<Record<string, number>>;
    enforce?: boolean;
    wires?: readonly WireName[];
  };
}

/** A running mock model. */
export interface MockModel {
  /** `http://127.0.0.1:<port>/v1`, the provider's `baseUrl` (every wire; the host adds `/messages` after `/v1`). */
  baseUrl: string;
  port: number;
  modelId: string;
  /** Every model request so far, on any wire, in arrival order. */
  requests: MockRequest[];
  /** Replaces the reply chooser. */
  setScript(script: MockScript): void;
  /** Requests of one turn. */
  requestsOfTurn(turn: number): MockRequest[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const CAPPED_TEXT = "Done (mock request cap reached).";

/**
 * Starts a mock model server on 127.0.0.1 (a free port) that speaks every wire of `wires.ts`:
 * `POST /v1/chat/completions`, `POST /v1/messages`, `POST /v1/responses` (SSE when
 * `stream: true`, JSON otherwise) and `GET /v1/models`. Records every request. Turns are
 * told apart by the newest genuine user message, so a script can act "once per turn" even
 * though the host appends internal-context user messages after tool results.
 */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const modelId = options.modelId ?? "mock-model";
  const perTurn = options.maxRequestsPerTurn ?? 6;
  const total = options.maxRequestsTotal ?? 400;
  let script: MockScript = options.script ?? (() => ({ text: "OK." }));
  const strict = options.strict;
  const counter = strict ? await loadTokenCounter() : undefined;
  const endpointOf = (wire: WireName, contextWindow: number): WireEndpoint =>
    createWireEndpoint(
      wire,
      strict && counter && (strict.wires ?? WIRES).includes(wire)
        ? { contextWindow, enforce: strict.enforce, counter }
        : undefined,
    );
  const endpoints = new Map<WireName, WireEndpoint>(
    WIRES.map((wire) => [wire, endpointOf(wire, strict?.contextWindow ?? 0)]),
  );
  // The endpoints of the models of `strict.windows`, by model id and wire, made on first use.
  const modelEndpoints = new Map<string, WireEndpoint>();
  const endpointFor = (wire: WireName, body: Record<string, unknown>): WireEndpoint => {
    const model = typeof body.model === "string" ? body.model : undefined;
    const window = model === undefined ? undefined : strict?.windows?.[model];
    if (model === undefined || window === undefined) return endpoints.get(wire) as WireEndpoint;
    const key = `${wire}\u0000${model}`;
    let endpoint = modelEndpoints.get(key);
    if (!endpoint) modelEndpoints.set(key, (endpoint = endpointOf(wire, window)));
    return endpoint;
  };
  const requests: MockRequest[] = [];
  // Per partition: turn of each distinct user text, and requests so far in each turn.
  const turnOf = new Map<string, Map<string, number>>();
  const countInTurn = new Map<string, Map<number, number>>();

  const handleRequest = (wire: WireName, req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse): void => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"bad json"}}');
      return;
    }
    const endpoint = endpointFor(wire, body);
    const { messages, toolNames } = endpoint.view(body);
    const userText = newestGenuineUserText(messages);
    const partition = options.partition?.(userText) ?? "";
    const turns = turnOf.get(partition) ?? new Map<string, number>();
    turnOf.set(partition, turns);
    let turn = 0;
    if (userText !== undefined) {
      turn = turns.get(userText) ?? turns.size + 1;
      turns.set(userText, turn);
    }
    const counts = countInTurn.get(partition) ?? new Map<number, number>();
    countInTurn.set(partition, counts);
    const indexInTurn = counts.get(turn) ?? 0;
    counts.set(turn, indexInTurn + 1);
    const request: MockRequest = {
      index: requests.length,
      turn,
      indexInTurn,
      wire: endpoint.wire,
      path: req.url ?? "",
      headers: { ...req.headers },
      body,
      messages,
      lastMessage: messages.at(-1),
      userText: userText ?? "",
      toolNames,
      bytes: raw.length,
      messageBytes: Buffer.byteLength(JSON.stringify(messages)),
      capped: indexInTurn >= perTurn || requests.length >= total,
      partition,
    };
    requests.push(request);
    const judgement = endpoint.judge?.(body);
    if (judgement) request.usage = judgement.usage;
    if (judgement && !judgement.ok) {
      request.rejected = judgement.rejected;
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(judgement.errorBody));
      return;
    }
    if (judgement?.violation) request.violation = judgement.violation;
    let reply: MockReply;
    if (request.capped) reply = { text: CAPPED_TEXT };
    else {
      try {
        reply = script(request);
      } catch (error) {
        reply = { text: `mock script failed: ${String(error)}` };
      }
    }
    request.reply = reply;
    endpoint.write(res, reply, {
      // The model the request named (an agent's own model on a shared gateway), as a provider answers.
      model: typeof body.model === "string" ? body.model : modelId,
      requestIndex: request.index,
      body,
      ...(judgement ? { judgement } : {}),
      fallbackPromptTokens: options.promptTokens?.(request) ?? Math.ceil(request.messageBytes / 4),
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "";
      const wire = req.method === "POST" ? wireOfPath(url) : undefined;
      if (req.method === "GET" && url.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: modelId, object: "model", owned_by: "mock" }] }));
      } else if (wire) {
        handleRequest(wire, req, Buffer.concat(chunks), res);
      } else {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    modelId,
    requests,
    setScript: (next) => {
      script = next;
    },
    requestsOfTurn: (turn) => requests.filter((r) => r.turn === turn),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function newestGenuineUserText(messages: unknown[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown } | undefined;
    if (m?.role !== "user" || isInternalContextMessage(m)) continue;
    return textOfMessage(m);
  }
  return undefined;
}
