/**
 * Headless Chromium driven over the DevTools protocol (Node's own WebSocket and fetch, no library): load a page with
 * a header, read its DOM, take a screenshot. Debian's `chromium` (installed by `.ci/run` when missing).
 */
import { existsSync, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnGroup, stopGroup } from "./processes.js";

/** Where Debian installs the browser. */
export const CHROMIUM = "/usr/bin/chromium";

/** True when the browser is installed. */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

const WINDOW = { width: 1100, height: 1400 };

/** One browser tab under test control. */
export interface BrowserPage {
  /** Loads `url` with these extra request headers and waits for its load event. */
  open(url: string, headers?: Record<string, string>): Promise<void>;
  /** Evaluates a JavaScript expression in the page (by DevTools, not by the page) and returns its value. */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Buffer>;
  /** The page's frames (the top one first), each with its id and URL. */
  frames(): Promise<{ id: string; url: string }[]>;
  /**
   * Evaluates an expression inside frame `frameId`, in an isolated world DevTools creates there (the frame's own
   * Content-Security-Policy and sandbox do not apply to it; the page's scripts cannot see it).
   */
  evaluateInFrame<T>(frameId: string, expression: string): Promise<T>;
  /** Stops the browser and removes its profile. */
  close(): Promise<void>;
}

/** How the browser starts: its window size, and further command-line flags. */
export interface BrowserOptions {
  window?: { width: number; height: number };
  flags?: readonly string[];
}

/** Starts headless Chromium and opens one tab. */
export async function startBrowser({ window = WINDOW, flags = [] }: BrowserOptions = {}): Promise<BrowserPage> {
  const profile = await fsp.mkdtemp(path.join(os.tmpdir(), "cl-chromium-"));
  const child = spawnGroup(
    CHROMIUM,
    [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--window-size=${window.width},${window.height}`,
      `--user-data-dir=${profile}`,
      "--remote-debugging-port=0",
      ...flags,
      "about:blank",
    ],
    { env: { ...process.env, HOME: profile } },
  );
  const close = async (): Promise<void> => {
    if (child.pid !== undefined) await stopGroup(child.pid);
    await fsp.rm(profile, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    const port = await devtoolsPort(profile);
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      type: string;
      webSocketDebuggerUrl: string;
    }[];
    const target = targets.find((t) => t.type === "page");
    if (!target) throw new Error(`Expected a page target from Chromium, got ${JSON.stringify(targets)}`);
    const cdp = await connect(target.webSocketDebuggerUrl);
    await cdp.send("Page.enable");
    await cdp.send("Network.enable");
    return {
      async open(url, headers = {}) {
        await cdp.send("Network.setExtraHTTPHeaders", { headers });
        const loaded = cdp.once("Page.loadEventFired");
        await cdp.send("Page.navigate", { url });
        await loaded;
      },
      async evaluate<T>(expression: string) {
        const r = (await cdp.send("Runtime.evaluate", { expression, returnByValue: true })) as {
          result: { value: T };
        };
        return r.result.value;
      },
      async screenshot() {
        const r = (await cdp.send("Page.captureScreenshot", { format: "png" })) as { data: string };
        return Buffer.from(r.data, "base64");
      },
      async frames() {
        type Tree = { frame: { id: string; url: string }; childFrames?: Tree[] };
        const { frameTree } = (await cdp.send("Page.getFrameTree")) as { frameTree: Tree };
        const out: { id: string; url: string }[] = [];
        const walk = (t: Tree): void => {
          out.push({ id: t.frame.id, url: t.frame.url });
          for (const c of t.childFrames ?? []) walk(c);
        };
        walk(frameTree);
        return out;
      },
      async evaluateInFrame<T>(frameId: string, expression: string) {
        const { executionContextId } = (await cdp.send("Page.createIsolatedWorld", {
          frameId,
          worldName: "ledger-test",
        })) as { executionContextId: number };
        const r = (await cdp.send("Runtime.evaluate", {
          expression,
          contextId: executionContextId,
          returnByValue: true,
        })) as { result: { value: T } };
        return r.result.value;
      },
      async close() {
        cdp.close();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function devtoolsPort(profile: string): Promise<number> {
  const file = path.join(profile, "DevToolsActivePort");
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const text = await fsp.readFile(file, "utf8").catch(() => "");
    const port = Number(text.split("\n")[0]);
    if (port > 0) return port;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Expected Chromium to write ${file} within 30 s, got nothing`);
}

interface Cdp {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  once(event: string): Promise<unknown>;
  close(): void;
}

async function connect(url: string): Promise<Cdp> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`Expected to connect to ${url}`)), { once: true });
  });
  let next = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const waiters = new Map<string, ((v: unknown) => void)[]>();
  ws.addEventListener("message", (e: MessageEvent) => {
    const msg = JSON.parse(String(e.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
      method?: string;
      params?: unknown;
    };
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result);
    } else if (msg.method) {
      const list = waiters.get(msg.method) ?? [];
      waiters.delete(msg.method);
      for (const w of list) w(msg.params);
    }
  });
  return {
    send(method, params = {}) {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    once(event) {
      return new Promise((resolve) => waiters.set(event, [...(waiters.get(event) ?? []), resolve]));
    },
    close() {
      ws.close();
    },
  };
}
