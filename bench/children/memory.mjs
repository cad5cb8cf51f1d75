// Memory of a process running the engine: RSS with the engine loaded and the
// tokenizer warm, then its growth over the 200-turn session (the session's own
// messages are generated before the baseline, so they are not counted as growth).
// Run with --expose-gc. Prints one JSON line.
const turns = Number(process.argv[2] ?? 200);
const mb = () => process.memoryUsage().rss / 1_048_576;
const heap = () => process.memoryUsage().heapUsed / 1_048_576;
// Memory outside live JS objects: V8's committed heap, and buffers held by native code.
const outside = () => {
  const u = process.memoryUsage();
  return { heapTotalMB: u.heapTotal / 1_048_576, externalMB: u.external / 1_048_576 };
};
const settle = () => {
  globalThis.gc?.();
  globalThis.gc?.();
};
const { createTokenCounter } = await import("../../dist/src/tokens/count-message.js");
const { createBenchEngine } = await import("../lib/engine.mjs");
const { generateToolSession } = await import("../lib/synthetic-session.mjs");
const bench = await createBenchEngine();
const counter = bench.services.counter(bench.services.settings("main"), "gpt-4o");
counter.countText("warm the tokenizer up");
settle();
const loaded = { rssMB: mb(), heapMB: heap() };
await bench.cleanup();
const { replayLedger } = await import("../lib/replay.mjs");
const session = generateToolSession({ turns });
settle();
const withSession = { rssMB: mb(), heapMB: heap(), ...outside() };
const samples = [];
const measureCounter = createTokenCounter({ encoding: "o200k_base" });
await replayLedger(session, {
  budget: 128_000,
  keepViews: false,
  measure: (m, s) => measureCounter.countMessages(m.slice(-1)) + (s ? 1 : 0),
  onTurn(turn) {
    if (turn % 20 === 0) {
      settle();
      samples.push({ turn, rssMB: mb(), heapMB: heap() });
    }
  },
});
settle();
const end = { rssMB: mb(), heapMB: heap(), ...outside() };
console.log(
  JSON.stringify({
    turns,
    loaded,
    withSession,
    end,
    samples,
    growthRssMB: end.rssMB - withSession.rssMB,
    growthHeapMB: end.heapMB - withSession.heapMB,
    growthHeapTotalMB: end.heapTotalMB - withSession.heapTotalMB,
    growthExternalMB: end.externalMB - withSession.externalMB,
    peakRssMB: Math.max(...samples.map((s) => s.rssMB)),
  }),
);
