/**
 * A gateway client in the test process: one WebSocket per gateway instead of a CLI
 * process per call (each `openclaw gateway call` cost seconds of Node start-up and
 * handshake). The wire, as every host line from 2026.4.24 to 2026.9.x speaks it:
 * the gateway sends `{type:"event", event:"connect.challenge"}`, the client answers
 * `{type:"req", method:"connect"}` with token auth, then requests are
 * `{type:"req", id, method, params}`, answers `{type:"res", id, ok, payload|error}`
 * and broadcasts `{type:"event", event, payload}`. 2026.4.24 speaks protocol 3,
 * 5.28+ protocol 4: the client offers 3..4 and both accept. As `client.id:
 * "gateway-client"`, `mode: "backend"` on loopback with the shared token, no device
 * identity is needed and the requested operator scopes are kept (every line).
 */
import { randomUUID } from "node:crypto";

/** An error the gateway answered (`ok: false`), or a closed/timed-out socket. */
export class GatewayRequestError extends Error {
  readonly code: string | undefined;
  readonly details: unknown;
  readonly retryAfterMs: number | undefined;
  constructor(method: string, error: { code?: string; message?: string; details?: unknown; retryAfterMs?: number }) {
    super(
      `Expected gateway ${method} to succeed, got ${error.code ?? "error"}: ${error.message ?? "unknown"}${error.details ? ` ${JSON.stringify(error.details)}` : ""}`,
    );
    this.code = error.code;
    this.details = error.details;
    this.retryAfterMs = error.retryAfterMs;
  }
}

/** One broadcast event. */
export interface GatewayEvent {
  event: string;
  payload: unknown;
  seq?: number;
}

/** An open, authenticated connection. */
export interface GatewayClient {
  /** The `hello-ok` payload. */
  hello: Record<string, unknown>;
  /** Sends one request and resolves with its payload (rejects with {@link GatewayRequestError}). */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /** Subscribes to broadcast events; returns the unsubscribe function. */
  onEvent(listener: (event: GatewayEvent) => void): () => void;
  /** True until the socket closes. */
  readonly open: boolean;
  close(): void;
}

/** Options for {@link connectGateway}. */
export interface ConnectGatewayOptions {
  port: number;
  token: string;
  /** Handshake budget (socket open + challenge + connect). @default 30000 */
  timeoutMs?: number;
}

const SCOPES = ["operator.admin", "operator.read", "operator.write"];

interface Pending {
  method: string;
  resolve: (payload: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/** Opens a WebSocket to a loopback gateway and completes the token handshake. */
export async function connectGateway(options: ConnectGatewayOptions): Promise<GatewayClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${options.port}`);
  const pending = new Map<string, Pending>();
  const listeners = new Set<(event: GatewayEvent) => void>();
  let open = false;
  let closedReason = "";
  let challenge: (() => void) | undefined;
  let challenged = false;

  const failAll = (reason: string): void => {
    for (const [id, p] of pending) {
      if (p.timer) clearTimeout(p.timer);
      pending.delete(id);
      p.reject(new GatewayRequestError(p.method, { code: "SOCKET_CLOSED", message: reason }));
    }
  };

  ws.addEventListener("message", (msg) => {
    let frame: {
      type?: string;
      id?: string;
      ok?: boolean;
      payload?: unknown;
      error?: Record<string, unknown>;
      event?: string;
      seq?: number;
    };
    try {
      frame = JSON.parse(
        typeof msg.data === "string" ? msg.data : Buffer.from(msg.data as ArrayBuffer).toString("utf8"),
      );
    } catch {
      return;
    }
    if (frame.type === "event" && typeof frame.event === "string") {
      if (frame.event === "connect.challenge") {
        challenged = true;
        challenge?.();
        return;
      }
      for (const l of listeners) l({ event: frame.event, payload: frame.payload, seq: frame.seq });
      return;
    }
    if (frame.type === "res" && typeof frame.id === "string") {
      const p = pending.get(frame.id);
      if (!p) return;
      pending.delete(frame.id);
      if (p.timer) clearTimeout(p.timer);
      if (frame.ok) p.resolve(frame.payload);
      else
        p.reject(
          new GatewayRequestError(
            p.method,
            (frame.error ?? {}) as ConstructorParameters<typeof GatewayRequestError>[1],
          ),
        );
    }
  });
  ws.addEventListener("close", (e) => {
    open = false;
    closedReason = `socket closed (${e.code}${e.reason ? ` ${e.reason}` : ""})`;
    failAll(closedReason);
    challenge?.();
  });

  const request = (method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) {
        reject(new GatewayRequestError(method, { code: "SOCKET_CLOSED", message: closedReason || "socket not open" }));
        return;
      }
      const id = randomUUID();
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              pending.delete(id);
              reject(
                new GatewayRequestError(method, {
                  code: "CLIENT_TIMEOUT",
                  message: `no answer within ${timeoutMs} ms`,
                }),
              );
            }, timeoutMs)
          : undefined;
      pending.set(id, { method, resolve, reject, timer });
      ws.send(JSON.stringify({ type: "req", id, method, params }));
    });

  const budget = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + budget;
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`Expected the gateway socket on ${options.port} to open within ${budget} ms`)),
        budget,
      );
      ws.addEventListener("open", () => (clearTimeout(t), resolve()), { once: true });
      ws.addEventListener(
        "error",
        () => (
          clearTimeout(t),
          reject(new Error(`Expected the gateway socket on ${options.port} to open, got an error`))
        ),
        { once: true },
      );
    });
    open = true;
    // Every line sends the challenge first; wait for it (the connect frame must follow it).
    if (!challenged) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`Expected connect.challenge from the gateway on ${options.port}`)),
          Math.max(1, deadline - Date.now()),
        );
        challenge = () => (clearTimeout(t), resolve());
      });
    }
    if (!open) throw new Error(`Expected the gateway on ${options.port} to keep the socket open, got ${closedReason}`);
    const hello = (await request(
      "connect",
      {
        minProtocol: 3,
        maxProtocol: 4,
        client: { id: "gateway-client", version: "context-ledger-tests", platform: process.platform, mode: "backend" },
        role: "operator",
        scopes: SCOPES,
        caps: [],
        auth: { token: options.token },
      },
      Math.max(1, deadline - Date.now()),
    )) as Record<string, unknown>;
    return {
      hello,
      request,
      onEvent(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      get open() {
        return open;
      },
      close() {
        open = false;
        failAll("closed by client");
        ws.close();
      },
    };
  } catch (error) {
    failAll("handshake failed");
    ws.close();
    throw error;
  }
}
