/**
 * Takes docs/ledger-tab.png: the gateway's own Control UI (its sidebar) with the Ledger tab open on a session, on a
 * real 2026.9.6 gateway after a real eight-turn session against the mock model, in headless Chromium. Needs
 * /usr/bin/chromium; the npm script builds first. Not part of `npm test`: it writes into docs/.
 *
 *   npm run screenshot:ledger [-- out.png]
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { LEDGER_PAGE_PATH, LEDGER_TAB_ID } from "../src/page/page-route.js";
import { hasChromium, startBrowser, type BrowserPage } from "../test/host/chromium.js";
import { startHostRig, type HostRig } from "../test/host/gateway-session.js";
import { NODE_BINARY } from "../test/host/host-install.js";
import { printCharsCommand, toolTurnScript } from "../test/host/mock-scripts.js";

const SESSION = "agent:main:main";
/** The session: each user message and the size of the output its `exec` prints. */
const TURNS: readonly [string, number][] = [
  ["Run the nightly report and tell me which jobs retried.", 60_000],
  ["Show me the first rows of the retry list.", 7_000],
  ["Now the rows for the staging cluster.", 7_000],
  ["Run the full report again for staging.", 90_000],
  ["Show the slowest paths.", 7_000],
  ["And the ones under /srv/app/mod12.", 7_000],
  ["Compare with yesterday's rows.", 7_000],
  ["Write the three actions for tomorrow.", 2_000],
];
const WINDOW = { width: 1280, height: 1500 };

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`Expected ${what} within ${ms / 1000} s, got nothing`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? "docs/ledger-tab.png");
  if (!hasChromium()) throw new Error("Expected /usr/bin/chromium (apt-get install chromium)");
  let rig: HostRig | undefined;
  let browser: BrowserPage | undefined;
  try {
    let turn = 0;
    rig = await startHostRig({
      version: "2026.9.6",
      engine: "context-ledger",
      contextWindow: 32_000,
      extraConfig: { gateway: { controlUi: { enabled: true } } },
      script: toolTurnScript({
        call: () => ({ name: "exec", args: { command: printCharsCommand(TURNS[turn]?.[1] ?? 2_000, NODE_BINARY) } }),
        answer: () => `Done: turn ${turn + 1} answered from the report's rows.`,
      }),
    });
    for (; turn < TURNS.length; turn++) {
      const sent = await rig.gateway.chatSend(SESSION, TURNS[turn]![0]);
      if (sent.wait.status !== "ok")
        throw new Error(`Expected turn ${turn + 1} to end ok, got ${JSON.stringify(sent.wait)}`);
      console.log(`turn ${turn + 1} answered`);
    }
    const origin = `http://127.0.0.1:${rig.gateway.port}`;
    // The tab's sandboxed frame in the page's own process, so DevTools reaches it through the page.
    browser = await startBrowser({ window: WINDOW, flags: ["--disable-features=IsolateSandboxedIframes"] });
    await browser.open(`${origin}/plugin?plugin=context-ledger&id=${LEDGER_TAB_ID}#token=${rig.env.gatewayToken}`);
    const page = browser;
    const frame = await waitFor("the Ledger tab's frame", async () =>
      (await page.frames()).find((f) => f.url.includes(LEDGER_PAGE_PATH)),
    );
    const session = `${LEDGER_PAGE_PATH}/session?agent=main&key=${encodeURIComponent(SESSION)}`;
    // The engine records a turn's figures after the turn: the page is read again until it shows every turn.
    await waitFor("the session page in the tab, with every turn", async () => {
      await page.evaluateInFrame(frame.id, `location.assign(${JSON.stringify(session)})`);
      await new Promise((r) => setTimeout(r, 1_500));
      const turns = await page.evaluateInFrame<number>(
        frame.id,
        `document.querySelectorAll("table.turns tr").length - 1`,
      );
      return turns >= TURNS.length ? true : undefined;
    });
    // The Control UI's own promotion panel covers part of the sidebar: closed, as a user would.
    const closed = await page.evaluate<boolean>(`(() => {
      const all = (root) => [...root.querySelectorAll("*")].flatMap((e) => [e, ...(e.shadowRoot ? all(e.shadowRoot) : [])]);
      const close = all(document).find((e) => e.tagName === "BUTTON" && e.classList.contains("invite__close"));
      close?.click();
      return close !== undefined;
    })()`);
    if (!closed) console.log("the Control UI's promotion panel was not found: left as it is");
    const contract = await page.evaluateInFrame<string[]>(
      frame.id,
      `[...document.querySelectorAll("table.contract tr")].map((r) => r.textContent)`,
    );
    console.log(`contract rows: ${contract.join(" | ")}`);
    await new Promise((r) => setTimeout(r, 1_000));
    const png = await page.screenshot();
    await fsp.writeFile(out, png);
    console.log(`wrote ${out} (${Math.round(png.length / 1024)} KB)`);
  } catch (err) {
    // What the browser showed instead, to see why.
    if (browser) {
      await fsp.writeFile(out.replace(/\.png$/, ".failed.png"), await browser.screenshot()).catch(() => undefined);
      console.error("frames:", JSON.stringify(await browser.frames().catch(() => [])));
    }
    throw err;
  } finally {
    await browser?.close();
    await rig?.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
