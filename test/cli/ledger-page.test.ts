import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerPage, LEDGER_PAGE_PATH, servePage } from "../../src/page/page-route.js";
import { PAGE_CSP } from "../../src/page/page-html.js";
import { assistant, call, createTestEngine, logText, result, user } from "../support/engine-harness.js";

const SESSION = { sessionId: "s-page", sessionKey: "agent:main:page" };
const HOSTILE = `<script>alert("owned")</script><img src=x onerror=alert(1)>`;

/** A response the page writes into, as the gateway's would be. */
function fakeResponse(): { statusCode: number; headers: Map<string, string>; body: string | undefined } & {
  setHeader(name: string, value: string): void;
  end(body?: string): void;
} {
  const res = {
    statusCode: 0,
    headers: new Map<string, string>(),
    body: undefined as string | undefined,
    setHeader(name: string, value: string) {
      res.headers.set(name.toLowerCase(), value);
    },
    end(body?: string) {
      res.body = body;
    },
  };
  return res;
}

describe("the Ledger page through a real assemble", () => {
  let t: Awaited<ReturnType<typeof createTestEngine>>;
  const hostConfig = () => ({
    agents: { defaults: { model: { primary: "mock/m" } } },
    models: { providers: { mock: { models: [{ id: "m", contextWindow: 32_000 }] } } },
  });

  beforeAll(async () => {
    t = await createTestEngine();
    const output = `${HOSTILE}\n${logText(30_000, 0)}`;
    const messages = [
      user("Run the build."),
      call("call-1", "exec", { command: "npm run build" }),
      result("call-1", "exec", output),
      assistant("The build ran."),
      user("What failed?"),
    ];
    await t.engine.assemble({ ...SESSION, messages, tokenBudget: 8_000 });
    await t.engine.dispose();
  });
  afterAll(async () => t.cleanup());

  it("lists the session with its figures, and the session page draws the chart and the stub beside a link", async () => {
    const index = await answerPage(t.services, `${LEDGER_PAGE_PATH}/`, hostConfig);
    expect(index.status).toBe(200);
    expect(index.html).toContain(`session?agent=main&amp;key=${encodeURIComponent(SESSION.sessionKey)}`);
    const page = await answerPage(
      t.services,
      `${LEDGER_PAGE_PATH}/session?agent=main&key=${encodeURIComponent(SESSION.sessionKey)}`,
      hostConfig,
    );
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<svg [^>]*aria-label="prompt per turn against budget and window"/);
    expect(page.html).toContain('class="window"');
    expect(page.html).toContain("window 32,000");
    expect(page.html).toMatch(/<table class="offloaded">[\s\S]*artifact\?agent=main&amp;key=/);
    // The hostile head of the output shows as text in the stub, never as markup.
    expect(page.html).not.toContain("<script>");
    expect(page.html).not.toContain("<img");
  });

  it("shows an original beside its stub, escaped and redacted as ledger_fetch answers", async () => {
    const list = [];
    for await (const meta of t.services.store("main").list()) if (meta.kind === "tool-output") list.push(meta);
    const handle = list[0]?.handle ?? "";
    const page = await answerPage(
      t.services,
      `${LEDGER_PAGE_PATH}/artifact?agent=main&key=${encodeURIComponent(SESSION.sessionKey)}&handle=${encodeURIComponent(handle)}`,
      hostConfig,
    );
    expect(page.status).toBe(200);
    expect(page.html).toContain('<pre class="original">');
    expect(page.html).toContain("&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;");
    expect(page.html).not.toContain("<script>");
    expect(page.html).toMatch(/<pre class="stub">\[context-ledger artifact /);
  });

  it("answers GET only, under a policy that runs no script, and names what it cannot find", async () => {
    const post = fakeResponse();
    await servePage(t.services, { method: "POST", url: `${LEDGER_PAGE_PATH}/` }, post, hostConfig);
    expect(post.statusCode).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const get = fakeResponse();
    await servePage(t.services, { method: "GET", url: `${LEDGER_PAGE_PATH}/` }, get, hostConfig);
    expect(get.statusCode).toBe(200);
    expect(get.headers.get("content-security-policy")).toBe(PAGE_CSP);
    expect(PAGE_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(PAGE_CSP).not.toContain("script-src");
    expect(get.headers.get("x-content-type-options")).toBe("nosniff");
    const missing = await answerPage(
      t.services,
      `${LEDGER_PAGE_PATH}/artifact?agent=main&key=x&handle=ledger:v1:sha256:${"0".repeat(64)}`,
      hostConfig,
    );
    expect(missing.status).toBe(404);
    expect((await answerPage(t.services, `${LEDGER_PAGE_PATH}/session?agent=main&key=nope`, hostConfig)).status).toBe(
      404,
    );
    expect((await answerPage(t.services, `${LEDGER_PAGE_PATH}/session?agent=../x&key=nope`, hostConfig)).status).toBe(
      404,
    );
  });
});
