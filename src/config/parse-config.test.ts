import { hostFunction, installedHostDists } from "../../test/support/host-dist.js";
import { describe, expect, it } from "vitest";
import { isLedgerError } from "../errors.js";
import { parseConfig, resolveAgentSettings } from "./parse-config.js";

function messageOf(input: unknown): string {
  try {
    parseConfig(input);
  } catch (err) {
    expect(isLedgerError(err, "config_invalid")).toBe(true);
    return (err as Error).message;
  }
  throw new Error("expected config_invalid");
}

describe("parseConfig", () => {
  it("fills every default from an empty config", () => {
    const c = parseConfig({});
    expect(c.enabled).toBe(true);
    expect(c.offload.maxChars).toBe(8_000);
    expect(c.offload.maxLines).toBe(200);
    expect(c.offload.structuredMaxChars).toBe(2_000);
    expect(c.offload.previewChars).toBe(600);
    expect(c.summary.maxInjectedChars).toBe(4_000);
    expect(c.retrieval.defaultMaxChars).toBe(8_000);
    expect(c.schemaStrip.maxFieldBytes).toBe(10_240);
    expect(parseConfig(undefined)).toEqual(c);
  });

  // Each bad input names the path, what was expected and what was got.
  const table: [string, unknown, string[]][] = [
    ["unknown top-level key", { offlaod: {} }, ["(root)", "unknown key", "`offlaod`", "did you mean `offload`?"]],
    ["unknown nested key", { offload: { maxChar: 5 } }, ["offload", "`maxChar`"]],
    ["negative integer", { offload: { maxChars: -5 } }, ["offload.maxChars", "at least 200", "`-5` (number)"]],
    ["wrong type", { offload: { maxChars: "big" } }, ["offload.maxChars", "expected number", '`"big"` (string)']],
    [
      "non-integer",
      { summary: { maxInjectedChars: 1000.5 } },
      ["summary.maxInjectedChars", "expected int", "`1000.5`"],
    ],
    ["bad enum", { tokenizer: { encoding: "p50k" } }, ["tokenizer.encoding", "`o200k_base`", '`"p50k"`']],
    ["bad tool policy", { offload: { tools: { exec: "drop" } } }, ["offload.tools.exec", "`ephemeral`", '`"drop"`']],
    ["ratio too large", { budget: { safetyMarginRatio: 0.9 } }, ["budget.safetyMarginRatio", "at most 0.5", "`0.9`"]],
    ["bad per-agent key", { agents: { main: { enable: false } } }, ["agents.main", "`enable`"]],
    [
      "cross-field rule",
      { offload: { maxChars: 1_000, structuredMaxChars: 5_000 } },
      ["offload.structuredMaxChars", "at most offload.maxChars (1000)", "5000"],
    ],
    [
      "invalid redaction regex",
      { redaction: { patterns: ["(unclosed"] } },
      ["redaction.patterns", "valid regular expression", "`(unclosed`"],
    ],
    ["not an object", 42, ["(root)", "expected object", "`42` (number)"]],
  ];
  for (const [name, input, parts] of table) {
    it(`rejects ${name} with a readable message`, () => {
      const msg = messageOf(input);
      for (const part of parts) expect(msg).toContain(part);
    });
  }

  it("merges per-agent overrides and the per-agent toggle", () => {
    const c = parseConfig({
      offload: { maxChars: 9_000 },
      agents: { quiet: { enabled: false }, wide: { offload: { previewChars: 1_200 } } },
    });
    expect(resolveAgentSettings(c, "quiet").enabled).toBe(false);
    const wide = resolveAgentSettings(c, "wide");
    expect(wide.enabled).toBe(true);
    expect(wide.offload.previewChars).toBe(1_200);
    expect(wide.offload.maxChars).toBe(9_000);
    expect(resolveAgentSettings(c, "other").offload.previewChars).toBe(600);
    expect(resolveAgentSettings(parseConfig({ enabled: false }), "any").enabled).toBe(false);
  });
});

describe("the store section of the config", () => {
  it("defaults to the file store with a 1 GiB spool and cache", () => {
    expect(parseConfig({}).store).toEqual({ backend: "file", spoolBytes: 1024 ** 3, cacheBytes: 1024 ** 3 });
  });

  it("fills the S3 defaults around a bucket, credentials only by environment variable name", () => {
    const store = parseConfig({ store: { backend: "s3", s3: { bucket: "team-ledger", pathStyle: true } } }).store;
    expect(store.s3).toEqual({
      bucket: "team-ledger",
      prefix: "context-ledger",
      region: "us-east-1",
      pathStyle: true,
      accessKeyIdEnv: "AWS_ACCESS_KEY_ID",
      signingKeyEnv: "AWS_SECRET_ACCESS_KEY",
      timeoutMs: 30_000,
      gcGraceMs: 86_400_000,
      gatewayStaleMs: 7 * 86_400_000,
    });
  });

  it.each([
    ["s3 without a bucket section", { store: { backend: "s3" } }, ["store.s3", "bucket", '"s3"']],
    ["a bucket name with capitals", { store: { backend: "s3", s3: { bucket: "Team_Ledger" } } }, ["store.s3.bucket"]],
    ["a prefix with a leading slash", { store: { backend: "s3", s3: { bucket: "abc", prefix: "/x" } } }, ["prefix"]],
    [
      "an endpoint that is not http(s)",
      { store: { backend: "s3", s3: { bucket: "abc", endpoint: "ftp://x" } } },
      ["endpoint"],
    ],
    [
      "an endpoint with credentials in it",
      { store: { backend: "s3", s3: { bucket: "abc", endpoint: "http://AKIA:secret@rgw.local:7480" } } },
      ["endpoint", "without credentials"],
    ],
    ["an unknown backend", { store: { backend: "postgres" } }, ["store.backend", "postgres"]],
    [
      "a secret written into the config",
      { store: { s3: { bucket: "abc", secretAccessKey: "x" } } },
      ["unknown key", "secretAccessKey"],
    ],
    ["a spool below 1 MiB", { store: { spoolBytes: 10 } }, ["store.spoolBytes"]],
  ])("refuses %s with a message naming it", (_name, input, parts) => {
    const message = messageOf(input);
    for (const part of parts) expect(message).toContain(part);
  });
});

describe("an endpoint URL with credentials", () => {
  it("is refused without echoing the key", () => {
    const message = messageOf({
      store: { backend: "s3", s3: { bucket: "abc", endpoint: "http://AKIA:s3cr3t@rgw:7480" } },
    });
    expect(message).toContain("without credentials");
    expect(message).not.toContain("s3cr3t");
  });
});

describe("the S3 settings through the host's config get / set", () => {
  it("takes the deprecated `secretAccessKeyEnv` as `signingKeyEnv` when that is not set", () => {
    const s3 = (input: Record<string, unknown>) =>
      parseConfig({ store: { backend: "s3", s3: { bucket: "abc", ...input } } }).store.s3;
    expect(s3({ secretAccessKeyEnv: "OLD_NAME" })?.signingKeyEnv).toBe("OLD_NAME");
    expect(s3({ secretAccessKeyEnv: "OLD_NAME", signingKeyEnv: "NEW_NAME" })?.signingKeyEnv).toBe("NEW_NAME");
    expect(s3({})?.signingKeyEnv).toBe("AWS_SECRET_ACCESS_KEY");
  });

  it("names no store setting so that the host blanks its value (checked with each installed host's own test)", async () => {
    const hosts = installedHostDists();
    expect(hosts.length).toBeGreaterThan(0);
    const store = parseConfig({ store: { backend: "s3", s3: { bucket: "abc" } } }).store;
    const paths = [
      ...Object.keys(store).map((k) => `store.${k}`),
      ...Object.keys(store.s3 ?? {}).map((k) => `store.s3.${k}`),
    ].map((p) => `plugins.entries.context-ledger.config.${p}`);
    let checked = 0;
    for (const { version, dist } of hosts) {
      const sensitive = await hostFunction<(path: string) => boolean>(
        dist,
        "sensitive-paths-",
        "isSensitiveConfigPath",
      );
      if (!sensitive) continue;
      checked++;
      expect({ version, blanked: paths.filter((p) => sensitive(p)) }).toEqual({ version, blanked: [] });
      // The check is live: the old name is one the host blanks.
      expect(sensitive("plugins.entries.context-ledger.config.store.s3.secretAccessKeyEnv")).toBe(true);
    }
    expect(checked).toBeGreaterThan(0);
  });
});
