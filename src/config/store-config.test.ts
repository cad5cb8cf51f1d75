import { describe, expect, it } from "vitest";
import { isLedgerError } from "../errors.js";
import { parseConfig } from "./parse-config.js";

function messageOf(input: unknown): string {
  try {
    parseConfig(input);
  } catch (err) {
    expect(isLedgerError(err, "config_invalid")).toBe(true);
    return (err as Error).message;
  }
  throw new Error("expected config_invalid");
}

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
      secretAccessKeyEnv: "AWS_SECRET_ACCESS_KEY",
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
