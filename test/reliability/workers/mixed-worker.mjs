// One of N processes hammering one state dir: stash, verified fetch, gc with a
// referenced set, commitTurn (shared and own advancement keys), assemble (session
// state written behind). Journals every answer; writes a JSON report at the end.
import { createHash } from "node:crypto";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { handleForBytes } from "../../../src/artifacts/index.ts";
import { parseConfig } from "../../../src/config/parse-config.ts";
import { createEngine } from "../../../src/engine/create-engine.ts";
import { createLedgerRuntime } from "../../../src/runtime/ledger-runtime.ts";
import { contentFor, hashString, journal, memoryLogger, prng, readJournal, toolTurn } from "./shared.mjs";

const opts = JSON.parse(process.argv[2]);
const { id, stateDir, journalDir, durationMs, sharedKeys, sharedContents, seed } = opts;
const rand = prng(seed);
const pick = (list) => list[Math.floor(rand() * list.length)];
const mem = memoryLogger();
const services = createLedgerRuntime({ config: parseConfig({ stateDir, logLevel: "warn" }), hostLogger: mem.logger });
const engine = createEngine(services, { agentDir: path.join(stateDir, "host", "agents", "main", "agent") });
const store = services.store("main");
const refsFile = path.join(journalDir, `refs-${id}.jsonl`);
const doneFile = path.join(journalDir, `done-${id}.jsonl`);
const commitsFile = path.join(journalDir, `commits-${id}.jsonl`);

const counts = {
  stash: 0,
  stashShared: 0,
  stashEphemeral: 0,
  fetch: 0,
  fetchOther: 0,
  gc: 0,
  gcRemoved: 0,
  commit: 0,
  assemble: 0,
  ephemeralGone: 0,
};
const failures = [];
const mine = [];
const sharedOrder = [...Array(sharedKeys).keys()].sort(() => rand() - 0.5);
let seq = 0;

const sha = (text) => createHash("sha256").update(text).digest("hex");
const fail = (what, err) => failures.push(`${what}: ${err?.code ?? ""} ${err?.message ?? err}`);

async function stashKeep() {
  const shared = rand() < 0.3;
  const label = shared ? `shared-${Math.floor(rand() * sharedContents)}` : `keep-${id}-${seq++}`;
  const text = contentFor(label, 200 + Math.floor(rand() * (rand() < 0.1 ? 200_000 : 8_000)));
  const handle = handleForBytes(text);
  // The reference is recorded before the write, so a concurrent gc never sees it unreferenced.
  journal(refsFile, { handle });
  const res = await store.stash(text, { kind: "tool-output", origin: { agentId: "main", sessionKey: `w${id}` } });
  if (res.handle !== handle) fail("stash handle", `expected ${handle}, got ${res.handle}`);
  journal(doneFile, { handle, bytes: Buffer.byteLength(text), sha: sha(text) });
  mine.push({ handle, text });
  counts.stash++;
  if (shared) counts.stashShared++;
}

async function stashEphemeral() {
  const text = contentFor(`eph-${id}-${seq++}`, 300 + Math.floor(rand() * 4_000));
  const { handle } = await store.stash(text);
  counts.stashEphemeral++;
  const back = await store.tryRead(handle);
  if (back === undefined) counts.ephemeralGone++;
  else if (back.toString("utf8") !== text) fail("ephemeral read", handle);
}

async function fetchOwn() {
  if (mine.length === 0) return;
  const { handle, text } = pick(mine);
  const data = await store.read(handle);
  if (data.toString("utf8") !== text) fail("fetch own", handle);
  counts.fetch++;
}

async function fetchOther() {
  const others = readdirSync(journalDir).filter((n) => n.startsWith("done-") && n !== `done-${id}.jsonl`);
  if (others.length === 0) return;
  const lines = readJournal(path.join(journalDir, pick(others)));
  if (lines.length === 0) return;
  const { handle, bytes, sha: want } = pick(lines);
  const data = await store.read(handle);
  if (data.length !== bytes || sha(data) !== want) fail("fetch other", handle);
  counts.fetchOther++;
}

async function gc() {
  const referenced = new Set();
  for (const name of readdirSync(journalDir)) {
    if (name.startsWith("refs-"))
      for (const { handle } of readJournal(path.join(journalDir, name))) referenced.add(handle);
  }
  // 2 s covers the gap between reading the references and gc's scan.
  const report = await store.gc({ referenced, maxAgeMs: 2_000 });
  counts.gc++;
  counts.gcRemoved += report.removed.length;
}

async function commit() {
  const useShared = sharedOrder.length > 0 && rand() < 0.5;
  const key = useShared ? `shared-key-${sharedOrder.pop()}` : `own-${id}-${seq++}`;
  const sessionKey = useShared ? "agent:main:shared" : `agent:main:w${id}`;
  // Same key, same turn: the content depends on the key only.
  const output = contentFor(`turn-${key}`, hashString(key) % 2 === 0 ? 9_000 : 500);
  const messages = toolTurn(key, output);
  journal(refsFile, { handle: handleForBytes(output) });
  const res = await engine.commitTurn({ sessionId: "sess", sessionKey, advancementKey: key, messages });
  journal(commitsFile, { key, sessionKey, status: res.status });
  counts.commit++;
}

const history = [];
async function assemble() {
  history.push(...toolTurn(`view-${id}-${seq++}`, contentFor(`view-${id}-${seq}`, rand() < 0.3 ? 9_000 : 400)));
  if (history.length > 60) history.splice(0, 3);
  const budget = 2_000 + Math.floor(rand() * 6_000);
  const out = await engine.assemble({
    sessionId: "sess",
    sessionKey: `agent:main:view-${id % 2}`,
    messages: history,
    tokenBudget: budget,
  });
  if (!(out.estimatedTokens <= budget)) fail("assemble budget", `${out.estimatedTokens} > ${budget}`);
  for (const h of out.ledger?.offloaded
    ? (JSON.stringify(out.messages).match(/ledger:v1:sha256:[0-9a-f]{64}/g) ?? [])
    : []) {
    journal(refsFile, { handle: h });
    if (!(await store.has(h))) fail("assemble handle", h);
  }
  counts.assemble++;
}

const ops = [
  [0.28, stashKeep],
  [0.08, stashEphemeral],
  [0.18, fetchOwn],
  [0.1, fetchOther],
  [0.04, gc],
  [0.22, commit],
  [0.1, assemble],
];
const deadline = Date.now() + durationMs;
while (Date.now() < deadline) {
  let r = rand();
  let op = ops[ops.length - 1][1];
  for (const [p, fn] of ops) {
    if (r < p) {
      op = fn;
      break;
    }
    r -= p;
  }
  try {
    await op();
  } catch (err) {
    fail(op.name, err);
  }
}
await engine.dispose();
writeFileSync(
  path.join(journalDir, `report-${id}.json`),
  JSON.stringify({ id, counts, failures, logs: mem.lines.filter((l) => !l.startsWith("info")) }),
);
