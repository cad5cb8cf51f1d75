import { describe, expect, it } from "vitest";
import { countTextTokens } from "./count-text.js";
import { createTokenCounter } from "./count-message.js";
import type { EncodingName } from "./encoder.js";

const t = (text: string): number => countTextTokens(text);

describe("createTokenCounter: counting rules", () => {
  const counter = createTokenCounter();

  it("counts a user string as 4 framing tokens plus its text", () => {
    expect(counter.countMessage({ role: "user", content: "hello world", timestamp: 1 })).toBe(4 + 2);
  });

  it("counts user text blocks and 1,600 per image, never the image data", () => {
    const message = {
      role: "user",
      content: [
        { type: "text", text: "look at this" },
        { type: "image", data: "A".repeat(100_000), mimeType: "image/png" },
        { type: "image", data: "B", mimeType: "image/jpeg" },
      ],
    };
    expect(counter.countMessage(message)).toBe(4 + t("look at this") + 2 * 1600);
  });

  it("counts assistant text, thinking and tool calls (8 framing + name + id + arguments JSON)", () => {
    const args = { command: "ls -la /tmp", timeout: 30 };
    const message = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should list files.", thinkingSignature: "sig".repeat(1000) },
        { type: "text", text: "Listing." },
        { type: "toolCall", id: "call_1", name: "exec", arguments: args },
      ],
      usage: { input: 1, output: 2 },
      model: "gpt-4o",
      timestamp: 2,
    };
    const expected =
      4 + t("I should list files.") + t("Listing.") + 8 + t("exec") + t("call_1") + t(JSON.stringify(args));
    expect(counter.countMessage(message)).toBe(expected);
  });

  it("counts a tool result's name, call id and content, not its details", () => {
    const message = {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "exec",
      content: [{ type: "text", text: "total 0\n" }],
      details: { aggregated: "z".repeat(50_000) },
      isError: false,
      timestamp: 3,
    };
    expect(counter.countMessage(message)).toBe(4 + t("exec") + t("call_1") + t("total 0\n"));
  });

  it("counts custom host messages by what the host replays", () => {
    expect(counter.countMessage({ role: "compactionSummary", summary: "we did things", tokensBefore: 9 })).toBe(
      4 + 40 + t("we did things"),
    );
    expect(counter.countMessage({ role: "branchSummary", summary: "s", fromId: "x" })).toBe(4 + 40 + t("s"));
    expect(counter.countMessage({ role: "bashExecution", command: "ls", output: "a b", exitCode: 0 })).toBe(
      4 + 16 + t("ls") + t("a b"),
    );
    expect(counter.countMessage({ role: "custom", customType: "note", content: "hi", display: true })).toBe(
      4 + t("hi"),
    );
  });

  it("counts unknown roles by their JSON (countUnknown)", () => {
    const message = { role: "mystery", payload: { a: 1 } };
    expect(counter.countMessage(message)).toBe(4 + t(JSON.stringify(message)));
    expect(counter.countMessage("just a string")).toBe(4 + t("just a string"));
    expect(counter.countMessage(12345)).toBe(4 + t("12345"));
  });

  it("counts a binary block other than an image as 1,600 plus its metadata", () => {
    const block = { type: "audio", data: "Q".repeat(5000), format: "wav" };
    const expected = 4 + 1600 + t(JSON.stringify({ type: "audio", data: "[5000 chars]", format: "wav" }));
    expect(counter.countMessage({ role: "user", content: [block] })).toBe(expected);
  });

  it("honours a configured image estimate", () => {
    const small = createTokenCounter({ imageTokens: 85 });
    expect(small.countMessage({ role: "user", content: [{ type: "image", data: "x", mimeType: "image/png" }] })).toBe(
      4 + 85,
    );
  });

  it("adds 3 reply-priming tokens once per request", () => {
    const messages = [
      { role: "user", content: "hello world" },
      { role: "assistant", content: [{ type: "text", text: "hello world" }] },
    ];
    expect(counter.countMessages(messages)).toBe(3 + 6 + 6);
    expect(counter.countMessages([])).toBe(3);
  });
});

describe("createTokenCounter: malformed messages never throw", () => {
  const counter = createTokenCounter();

  it("counts what it can of missing or wrongly typed content", () => {
    expect(counter.countMessage(null)).toBe(4 + t("null"));
    expect(counter.countMessage(undefined)).toBe(4);
    expect(counter.countMessage({ role: "user" })).toBe(4);
    expect(counter.countMessage({ role: "user", content: 42 })).toBe(4 + t("42"));
    expect(
      counter.countMessage({
        role: "assistant",
        content: [null, 7, "raw", { type: "text" }, { type: "text", text: 5 }],
      }),
    ).toBe(4 + t("7") + t("raw"));
    expect(counter.countMessage({ role: "toolResult", toolName: 5, content: "ok" })).toBe(4 + t("ok"));
    expect(counter.countMessages("not an array" as unknown as unknown[])).toBe(3);
  });

  it("cuts cycles in arguments and unknown messages", () => {
    const args: Record<string, unknown> = { a: 1 };
    args.self = args;
    const call = { role: "assistant", content: [{ type: "toolCall", id: "c", name: "n", arguments: args }] };
    expect(counter.countMessage(call)).toBe(4 + 8 + t("n") + t("c") + t('{"a":1,"self":"[cycle]"}'));
    const odd: Record<string, unknown> = { role: "weird" };
    odd.me = odd;
    expect(counter.countMessage(odd)).toBe(4 + t('{"role":"weird","me":"[cycle]"}'));
  });

  it("counts a shared (non-cyclic) reference every time it appears", () => {
    const shared = { k: "v" };
    const message = { role: "weird", a: shared, b: shared };
    expect(counter.countMessage(message)).toBe(4 + t(JSON.stringify(message)));
  });

  it("survives throwing getters, revoked proxies and BigInts", () => {
    const throwing = {
      role: "user",
      get content(): unknown {
        throw new Error("boom");
      },
    };
    expect(counter.countMessage(throwing)).toBe(4);
    const blocks = [
      { type: "text", text: "kept" },
      {
        type: "text",
        get text(): string {
          throw new Error("boom");
        },
      },
    ];
    expect(counter.countMessage({ role: "user", content: blocks })).toBe(4 + t("kept"));
    const { proxy, revoke } = Proxy.revocable({ role: "user", content: "x" }, {});
    revoke();
    expect(counter.countMessage(proxy)).toBe(4);
    expect(counter.countMessage({ role: "weird", n: 10n })).toBe(4 + t('{"role":"weird","n":"10"}'));
  });

  it("falls back to the UTF-8 byte upper bound when the tokenizer cannot load", () => {
    const broken = createTokenCounter({ encoding: "nope" as EncodingName });
    expect(broken.countMessage({ role: "user", content: "héllo" })).toBe(4 + 6);
    expect(broken.stats().fallbacks).toBe(1);
    expect(() => broken.countText("x")).toThrow(/Expected encoding/);
  });
});

describe("createTokenCounter: caching", () => {
  it("answers the same object from the identity cache", () => {
    const counter = createTokenCounter();
    const message = { role: "user", content: "cache me" };
    const first = counter.countMessage(message);
    expect(counter.countMessage(message)).toBe(first);
    expect(counter.stats()).toMatchObject({ identityHits: 1, hashHits: 0, misses: 1 });
  });

  it("answers an equal copy from the content-hash cache", () => {
    const counter = createTokenCounter();
    const transcript = Array.from({ length: 50 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: [{ type: "text", text: `message ${i}` }],
    }));
    const total = counter.countMessages(transcript);
    const copy = structuredClone(transcript);
    expect(counter.countMessages(copy)).toBe(total);
    expect(counter.stats()).toMatchObject({ identityHits: 0, hashHits: 50, misses: 50, cachedMessages: 50 });
  });

  it("recounts when content is replaced on the same object", () => {
    const counter = createTokenCounter();
    const message: { role: string; content: string } = { role: "user", content: "short" };
    expect(counter.countMessage(message)).toBe(4 + t("short"));
    message.content = "a much longer replacement text";
    expect(counter.countMessage(message)).toBe(4 + t("a much longer replacement text"));
    expect(counter.stats().misses).toBe(2);
  });

  it("keeps at most cacheEntries messages, evicting the least recently used", () => {
    const counter = createTokenCounter({ cacheEntries: 2 });
    const a = () => ({ role: "user", content: "a" });
    const b = () => ({ role: "user", content: "b" });
    const c = () => ({ role: "user", content: "c" });
    counter.countMessage(a());
    counter.countMessage(b());
    counter.countMessage(a()); // refresh a
    counter.countMessage(c()); // evicts b
    counter.countMessage(a());
    counter.countMessage(b());
    expect(counter.stats()).toMatchObject({ hashHits: 2, misses: 4, cachedMessages: 2 });
  });

  it("does not confuse messages whose texts only differ in where they split", () => {
    const counter = createTokenCounter();
    const one = counter.countMessage({
      role: "user",
      content: [
        { type: "text", text: "ab" },
        { type: "text", text: "c" },
      ],
    });
    const two = counter.countMessage({
      role: "user",
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "bc" },
      ],
    });
    expect(counter.stats().misses).toBe(2);
    expect(one).toBe(4 + t("ab") + t("c"));
    expect(two).toBe(4 + t("a") + t("bc"));
  });
});
