import { describe, expect, it } from "vitest";
import { useTempDir } from "../../../test/support/temp-dir.js";
import { LedgerError } from "../../errors.js";
import { HANDLE_PREFIX } from "../format/handle.js";
import { listedHandles, parseHandleRef, resolveHandleRef, shortHandleOf } from "./handle-prefix.js";
import { createArtifactStore } from "../store.js";

const h = (hex: string) => `${HANDLE_PREFIX}${hex.padEnd(64, "0")}`;
const A = h("3f2a9c0d1b4e");
const B = h("3f2a9c0d77");
const C = h("cacb6c44");

async function failure(p: Promise<unknown>): Promise<LedgerError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LedgerError) return err;
    throw err;
  }
  throw new Error("Expected a failure, got none");
}

describe("parseHandleRef", () => {
  it("reads a whole handle in any of its forms, and a prefix of at least 8 hex digits in either case", () => {
    expect(parseHandleRef(A)).toEqual({ handle: A });
    expect(parseHandleRef(A.slice("ledger:v1:".length))).toEqual({ handle: A });
    expect(parseHandleRef(` \`${A.slice(HANDLE_PREFIX.length)}\` `)).toEqual({ handle: A });
    expect(parseHandleRef("cacb6c44")).toEqual({ prefix: "cacb6c44" });
    expect(parseHandleRef("CACB6C44AB")).toEqual({ prefix: "cacb6c44ab" });
    // Spelling the scheme claims a whole, canonical handle: no short or upper-case form behind it.
    expect(() => parseHandleRef("ledger:v1:sha256:cacb6c44")).toThrow(/64 lowercase hex/);
    expect(() => parseHandleRef(`ledger:v1:sha256:${"A".repeat(64)}`)).toThrow(/64 lowercase hex/);
  });

  it("refuses too few digits and non-hex text, saying which", () => {
    expect(() => parseHandleRef("cacb6c4")).toThrow(/Expected at least 8 hex digits of a handle .*got 7/);
    expect(() => parseHandleRef("cacb6c4z")).toThrow(/got non-hex `z`/);
    expect(() => parseHandleRef("HANDLE")).toThrow(/got non-hex `H`/);
    expect(() => parseHandleRef(`${"a".repeat(65)}`)).toThrow(/at most 64 hex digits, got 65/);
    expect(() => parseHandleRef(42)).toThrow(LedgerError);
  });
});

describe("resolveHandleRef", () => {
  it("resolves a prefix that starts exactly one candidate, and returns a whole handle as typed", async () => {
    expect(await resolveHandleRef("3f2a9c0d1b", () => [A, B, C, A])).toBe(A);
    expect(await resolveHandleRef("CACB6C44", () => [A, B, C])).toBe(C);
    expect(await resolveHandleRef(C, () => [])).toBe(C);
  });

  it("lists the candidates of an ambiguous prefix", async () => {
    const err = await failure(resolveHandleRef("3f2a9c0d", () => [A, B, C], { where: "in this chat's session" }));
    expect(err.code).toBe("handle_invalid");
    expect(err.message).toContain("Expected `3f2a9c0d` to start one handle in this chat's session, got 2:");
    expect(err.message).toContain(A);
    expect(err.message).toContain(B);
    expect(err.message).not.toContain(C);
  });

  it("does not see handles outside its candidates: another session's output is not found", async () => {
    const err = await failure(resolveHandleRef("cacb6c44", () => [A, B], { where: "in this chat's session" }));
    expect(err.code).toBe("artifact_not_found");
    expect(err.message).toBe("Expected an output in this chat's session whose handle starts with `cacb6c44`, got none");
  });

  it("refuses too short a prefix before reading any candidate", async () => {
    let read = false;
    const err = await failure(
      resolveHandleRef("3f2a", () => {
        read = true;
        return [A];
      }),
    );
    expect(err.code).toBe("handle_invalid");
    expect(read).toBe(false);
  });
});

describe("listedHandles", () => {
  const dir = useTempDir("handle-prefix-");

  it("resolves from a store's listing, filtered by origin", async () => {
    const store = createArtifactStore({ root: dir() });
    const mine = await store.stash("mine", { origin: { sessionKey: "agent:main:a" } });
    const theirs = await store.stash("theirs", { origin: { sessionKey: "agent:main:b" } });
    const ofA = () => listedHandles(store, (m) => m.origin.sessionKey === "agent:main:a");
    expect(await resolveHandleRef(shortHandleOf(mine.handle), ofA)).toBe(mine.handle);
    expect((await failure(resolveHandleRef(shortHandleOf(theirs.handle), ofA))).code).toBe("artifact_not_found");
    expect(await resolveHandleRef(shortHandleOf(theirs.handle), () => listedHandles(store))).toBe(theirs.handle);
    expect(shortHandleOf(mine.handle)).toMatch(/^[0-9a-f]{12}$/);
  });
});
