// Fresh-process first assemble(): module import, tokenizer load and the first
// plan of an N-message session, as a cold gateway pays them. Prints one JSON line.
// Usage: node bench/children/first-call.mjs <messages> <budget>
const n = Number(process.argv[2] ?? 50_000);
const budget = Number(process.argv[3] ?? 128_000);
const { generateLongHistory } = await import("../lib/synthetic-session.mjs");
const messages = generateLongHistory(n);
const t0 = performance.now();
const { createBenchEngine } = await import("../lib/engine.mjs");
const importMs = performance.now() - t0;
const bench = await createBenchEngine();
const ids = { sessionId: "first-call", sessionKey: "agent:main:first-call" };
const t1 = performance.now();
const view = await bench.engine.assemble({ ...ids, messages, tokenBudget: budget, model: "gpt-4o" });
const firstMs = performance.now() - t1;
const t2 = performance.now();
await bench.engine.assemble({ ...ids, messages: messages.slice(), tokenBudget: budget, model: "gpt-4o" });
const secondMs = performance.now() - t2;
await bench.cleanup();
console.log(
  JSON.stringify({
    n,
    importMs,
    firstMs,
    secondMs,
    firstWithImportMs: importMs + firstMs,
    kept: view.messages.length,
    tokens: view.estimatedTokens,
    rssMB: process.memoryUsage().rss / 1_048_576,
  }),
);
