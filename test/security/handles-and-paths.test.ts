import { promises as fsp } from "node:fs";
import { isHandle, createArtifactStore, parseHandleRef } from "../../src/artifacts/index.js";
import { normalizeFetchHandle } from "../../src/retrieval/fetch-input.js";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { artifactPaths } from "../../src/artifacts/format/blob-path.js";
import { runCli } from "../../src/cli/run-cli.js";
import { isLedgerError } from "../../src/errors.js";
import { createLedgerTools } from "../../src/retrieval/tools.js";
import { artifactRoot } from "../../src/state/paths.js";
import { createCliIo } from "../support/cli-io.js";
import { MALFORMED_HANDLES, NON_STRING_HANDLES } from "./hostile-handles.js";

const SECRET = "TOP-SECRET-OUTSIDE-THE-STORE";
let tmp: string;
let stateDir: string;
let outside: string;

beforeEach(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-sec-"));
  stateDir = path.join(tmp, "state");
  outside = path.join(tmp, "outside");
  await fsp.mkdir(outside);
  await fsp.writeFile(path.join(outside, "secret.txt"), SECRET);
});
afterEach(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    return isLedgerError(err) ? err.code : `foreign: ${(err as Error).message}`;
  }
}

const cli = async (argv: string[]) => {
  const c = createCliIo({ HOME: path.join(tmp, "home") });
  const code = await runCli([...argv, "--state-dir", stateDir, "--openclaw-state", path.join(tmp, "host")], c.io);
  return { code, out: c.stdout(), err: c.stderr() };
};

describe("malformed handles and path traversal", () => {
  it("the store API refuses every malformed handle with handle_invalid and touches nothing", async () => {
    const store = createArtifactStore({ root: artifactRoot(stateDir, "main") });
    await store.stash("some content");
    for (const bad of [...MALFORMED_HANDLES, ...NON_STRING_HANDLES]) {
      const h = bad as string;
      for (const op of [
        store.read(h),
        store.tryRead(h),
        store.readMeta(h),
        store.tryReadMeta(h),
        store.has(h),
        store.remove(h),
      ]) {
        expect(await codeOf(op), JSON.stringify(bad)).toBe("handle_invalid");
      }
    }
    expect(await fsp.readFile(path.join(outside, "secret.txt"), "utf8")).toBe(SECRET);
    expect((await store.stats()).count).toBe(1);
  });

  it("every CLI command that takes a handle refuses the corpus with exit 4 and prints nothing from outside", async () => {
    await cli(["artifact", "list"]);
    for (const bad of MALFORMED_HANDLES as string[]) {
      if (bad.startsWith("-") || bad === "") continue;
      // fetch and peek read what a person types (a handle's bare hex digits, 8 or more): such a form is simply not
      // in this store (exit 2); rm takes whole handles only.
      const typeable = (() => {
        try {
          parseHandleRef(bad);
          return true;
        } catch {
          return false;
        }
      })();
      for (const sub of ["fetch", "peek", "rm"]) {
        const r = await cli(["artifact", sub, bad]);
        expect(r.code, `${sub} ${JSON.stringify(bad)}: ${r.err}`).toBe(typeable && sub !== "rm" ? 2 : 4);
        expect(r.out).not.toContain(SECRET);
      }
      const raw = await cli(["artifact", "fetch", bad, "--raw"]);
      expect(raw.code).toBe(typeable ? 2 : 4);
      expect(raw.out).toBe("");
    }
    const empty = await cli(["artifact", "fetch", ""]);
    expect(empty.code).not.toBe(0);
  });

  it("the agent tools answer every malformed handle with an error result, never a throw or a read", async () => {
    const store = createArtifactStore({ root: artifactRoot(stateDir, "main") });
    const tools = createLedgerTools({ openStore: () => store, readableAgents: () => [] }, { agentId: "main" });
    // ledger_search takes no handle: every one of these calls lacks its query.
    const search = tools.find((t) => t.name === "ledger_search");
    for (const bad of [...MALFORMED_HANDLES, ...NON_STRING_HANDLES]) {
      const res = await search?.execute("call-0", { handle: bad });
      expect((res?.details.error as { code?: string } | undefined)?.code).toBe("input_invalid");
    }
    for (const tool of tools.filter((t) => t !== search)) {
      for (const bad of [...MALFORMED_HANDLES, ...NON_STRING_HANDLES]) {
        const res = await tool.execute("call-1", { handle: bad });
        const code = (res.details.error as { code?: string } | undefined)?.code;
        // Forms models send for a well-formed handle (padded, without the `ledger:` prefix) are read as that handle: it
        // is simply not in this store.
        const wellFormed = (() => {
          try {
            return isHandle(normalizeFetchHandle(bad));
          } catch {
            return false;
          }
        })();
        expect(
          wellFormed ? ["artifact_not_found"] : ["handle_invalid", "input_invalid"],
          `${tool.name} ${JSON.stringify(bad)}`,
        ).toContain(code);
        expect(res.content[0]?.text).not.toContain(SECRET);
      }
      for (const params of [null, undefined, "x", 5, [], { handle: "/etc/passwd", path: "../../x" }]) {
        const res = await tool.execute("call-2", params);
        expect(res.details.error).toBeDefined();
      }
    }
  });
});

describe("symlink escapes", () => {
  it("a blob replaced by a symlink to an outside file is refused by the store, the CLI and the tools", async () => {
    const root = artifactRoot(stateDir, "main");
    const store = createArtifactStore({ root });
    const { handle } = await store.stash(SECRET);
    const { blob } = artifactPaths(root, handle.slice(-64));
    await fsp.rm(blob);
    await fsp.symlink(path.join(outside, "secret.txt"), blob);
    const fresh = createArtifactStore({ root });
    expect(await codeOf(fresh.read(handle))).toBe("path_outside_store");
    const r = await cli(["artifact", "fetch", handle, "--raw"]);
    expect(r.code).not.toBe(0);
    expect(r.out).not.toContain(SECRET);
    const [fetchTool] = createLedgerTools({ openStore: () => fresh, readableAgents: () => [] }, { agentId: "main" });
    const res = await fetchTool!.execute("c", { handle });
    expect(res.details.error).toBeDefined();
    expect(res.content[0]?.text).not.toContain(SECRET);
  });

  it("a fan-out folder linked outside the store is refused for reads and for writes", async () => {
    const root = artifactRoot(stateDir, "main");
    const store = createArtifactStore({ root });
    const content = "content whose fan-out folder gets hijacked";
    const { handle } = await store.stash(content);
    const hex = handle.slice(-64);
    const fanout = path.dirname(path.dirname(artifactPaths(root, hex).blob));
    const planted = path.join(outside, "planted");
    await fsp.cp(fanout, planted, { recursive: true });
    await fsp.rm(fanout, { recursive: true });
    await fsp.symlink(planted, fanout);
    const fresh = createArtifactStore({ root });
    expect(await codeOf(fresh.read(handle))).toBe("path_outside_store");
    // A new stash into the same fan-out must not write through the link.
    await fsp.rm(path.join(planted), { recursive: true });
    await fsp.mkdir(planted);
    let other = "";
    for (let i = 0; !other; i++) {
      const candidate = `probe ${i}`;
      const { createHash } = await import("node:crypto");
      if (createHash("sha256").update(candidate).digest("hex").slice(0, 2) === hex.slice(0, 2)) other = candidate;
    }
    expect(await codeOf(fresh.stash(other))).toBe("path_outside_store");
    expect(await fsp.readdir(planted)).toEqual([]);
  });

  it("a state dir given as a symlink still keeps every read inside its real path", async () => {
    const real = path.join(tmp, "real-state");
    await fsp.mkdir(real);
    await fsp.symlink(real, stateDir);
    const store = createArtifactStore({ root: artifactRoot(stateDir, "main") });
    const { handle } = await store.stash("through a linked state dir");
    expect(await store.readText(handle)).toBe("through a linked state dir");
    const r = await cli(["artifact", "fetch", handle, "--raw"]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("through a linked state dir");
  });
});
