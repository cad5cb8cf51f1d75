/**
 * The Ledger page in a real browser against real gateways: on 2026.9.6 after a real two-turn session (the tab is
 * advertised in the gateway hello, the chart, the prompt contract per prompt and a stub beside its original render,
 * a tool output holding `<script>` shows as text, nothing runs), refused without the gateway's auth (no page, no
 * artifact byte); on 2026.4.24 the same route answers. Set LEDGER_PAGE_SCREENSHOT=<file.png> to keep a screenshot
 * of the session page.
 */
import { promises as fsp } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { LEDGER_PAGE_PATH } from "../../src/page/page-route.js";
import { CHROMIUM, hasChromium, startBrowser, type BrowserPage } from "./chromium.js";
import { startHostRig, type HostRig } from "./gateway-session.js";
import { createHostEnv, type HostEnv } from "./host-env.js";
import { NODE_BINARY } from "./host-install.js";
import { startGateway, type Gateway } from "./gateway.js";
import { printCharsCommand, printedChars, toolTurnScript } from "./mock-scripts.js";

const HOSTILE = "<script>document.title='owned'</script>";
const OUTPUT_CHARS = 40_000;
const SESSION = "agent:main:ledger-page";

if (!hasChromium())
  console.warn(
    `[ledger-page] SKIPPED: ${CHROMIUM} is missing (apt-get install chromium); LEDGER_REQUIRE_CHROMIUM=1 fails instead`,
  );

describe.skipIf(!hasChromium() && process.env.LEDGER_REQUIRE_CHROMIUM !== "1")("the Ledger page", () => {
  let rig: HostRig | undefined;
  let browser: BrowserPage | undefined;
  let old: { env: HostEnv; gateway: Gateway } | undefined;
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
    await old?.gateway.stop();
    await old?.env.cleanup();
  }, 120_000);

  it("on 2026.9.6: a tab in the hello, the chart, the contract and a stub beside its original, no script, nothing without auth", async () => {
    expect(hasChromium(), `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
    rig = await startHostRig({
      version: "2026.9.6",
      engine: "context-ledger",
      contextWindow: 32_000,
      script: toolTurnScript({
        call: () => ({
          name: "exec",
          args: {
            command: `${NODE_BINARY} -e "process.stdout.write(process.argv[1])" "${HOSTILE}"; ${printCharsCommand(OUTPUT_CHARS, NODE_BINARY)}`,
          },
        }),
        answer: (r) => `Done (${r.index}).`,
      }),
    });
    for (const message of ["Run the report.", "Run it again."]) {
      const turn = await rig.gateway.chatSend(SESSION, message);
      expect(turn.wait.status, JSON.stringify(turn.wait)).toBe("ok");
    }
    const client = await rig.gateway.client();
    const tabs = (client.hello.controlUiTabs ?? []) as { id?: unknown; path?: unknown; pluginId?: unknown }[];
    expect(tabs.find((t) => t.id === "ledger")).toMatchObject({ path: `${LEDGER_PAGE_PATH}/` });

    const base = `http://127.0.0.1:${rig.gateway.port}${LEDGER_PAGE_PATH}`;
    const session = `${base}/session?agent=main&key=${encodeURIComponent(SESSION)}`;
    const auth = { Authorization: `Bearer ${rig.env.gatewayToken}` };
    browser = await startBrowser();
    await browser.open(session, auth);
    const page = await browser.evaluate<{
      bars: number;
      offloaded: number;
      link: string | null;
      scripts: number;
      title: string;
      contract: { rows: number; cells: number; kept: number; broken: number; requestBody: number; heads: string[] };
    }>(`({
      contract: {
        rows: document.querySelectorAll("table.contract tr").length - 1,
        cells: document.querySelectorAll("table.contract td[class^='c-']").length,
        kept: document.querySelectorAll("table.contract td.c-kept").length,
        broken: document.querySelectorAll("table.contract td.c-broken").length,
        requestBody: document.querySelectorAll("table.contract td.c-request-body").length,
        heads: [...document.querySelectorAll("table.contract th")].map((th) => th.textContent),
      },
      bars: document.querySelectorAll("svg rect.prompt").length,
      offloaded: document.querySelectorAll("table.offloaded tr").length - 1,
      link: document.querySelector("table.offloaded a")?.getAttribute("href") ?? null,
      scripts: document.scripts.length,
      title: document.title,
    })`);
    expect(page.bars).toBeGreaterThanOrEqual(1);
    expect(page.offloaded).toBeGreaterThanOrEqual(1);
    expect(page.scripts).toBe(0);
    // The prompt contract per recorded prompt: every clause the engine judges kept, the two it cannot marked so.
    expect(page.contract.heads).toEqual(expect.arrayContaining(["user messages", "handles resolve", "tool pairs"]));
    expect(page.contract.rows).toBeGreaterThanOrEqual(1);
    expect(page.contract.cells).toBe(page.contract.rows * 8);
    expect(page.contract.broken).toBe(0);
    expect(page.contract.kept).toBe(page.contract.rows * 6);
    expect(page.contract.requestBody).toBe(page.contract.rows * 2);
    if (process.env.LEDGER_PAGE_SCREENSHOT)
      await fsp.writeFile(process.env.LEDGER_PAGE_SCREENSHOT, await browser.screenshot());

    const artifact = new URL(page.link ?? "", session).toString();
    await browser.open(artifact, auth);
    const shown = await browser.evaluate<{ original: string; stub: string; scripts: number; title: string }>(`({
      original: document.querySelector("pre.original")?.textContent ?? "",
      stub: document.querySelector("pre.stub")?.textContent ?? "",
      scripts: document.scripts.length,
      title: document.title,
    })`);
    // The output's own `<script>` is text on the page: shown, never run (the title it would set stays the page's).
    expect(shown.original).toContain(HOSTILE);
    expect(shown.original).toContain(printedChars(OUTPUT_CHARS).slice(0, 200));
    expect(shown.stub).toMatch(/^\[context-ledger artifact ledger:v1:sha256:/);
    expect(shown.scripts).toBe(0);
    expect(shown.title).not.toBe("owned");

    // Without the gateway's auth: no page and no byte of the output.
    for (const url of [`${base}/`, session, artifact]) {
      const res = await fetch(url);
      const body = await res.text();
      expect(res.status, `${url}: ${body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(body).not.toContain("row 1 status=");
      expect(body).not.toContain(SESSION);
    }
    console.log(
      `[ledger-page] 9.6: tab ${JSON.stringify(tabs.find((t) => t.id === "ledger"))}; ${page.bars} turn bars, ${page.offloaded} offloaded rows, ${page.contract.rows} contract rows; unauthenticated: refused`,
    );
  }, 600_000);

  it("on 2026.4.24 the same route answers under the gateway's auth", async () => {
    const env = await createHostEnv({
      version: "2026.4.24",
      baseUrl: "http://127.0.0.1:9/v1",
      engine: "context-ledger",
    });
    old = { env, gateway: await startGateway(env) };
    const url = `http://127.0.0.1:${old.gateway.port}${LEDGER_PAGE_PATH}/`;
    const refused = await fetch(url);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const ok = await fetch(url, { headers: { Authorization: `Bearer ${env.gatewayToken}` } });
    const body = await ok.text();
    expect(ok.status, body.slice(0, 500)).toBe(200);
    expect(body).toContain("<h1>Ledger</h1>");
    expect(ok.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    console.log(`[ledger-page] 4.24: unauthenticated ${refused.status}, authenticated ${ok.status}`);
  }, 600_000);
});
