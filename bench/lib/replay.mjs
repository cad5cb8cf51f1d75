// Replays the synthetic session through one "engine" the way the 2026.9 host
// drives a tool loop: one prompt per model call (after the user message and
// after every tool result), then commitTurn with the turn's messages.
import { driveTurn } from "./drive-turn.mjs";
import { createBenchEngine } from "./engine.mjs";

const IDS = { sessionId: "bench-session", sessionKey: "agent:main:bench" };

/** Per-turn record of a replay. */
function turnRecord(turn, calls) {
  return {
    turn,
    calls: calls.length,
    prompt: Math.max(...calls.map((c) => c.tokens)),
    sent: calls.reduce((s, c) => s + c.tokens, 0),
  };
}

/**
 * Drives the real engine. `measure(messages, systemPromptAddition)` gives the
 * prompt's tokens (the same counter for every engine compared).
 * @returns {Promise<{ turns: object[], calls: object[] }>}
 */
export async function replayLedger(session, { budget, config = {}, measure, onTurn, keepViews = true }) {
  const bench = await createBenchEngine(config);
  const { engine } = bench;
  const history = [];
  const turns = [];
  const calls = [];
  try {
    for (let t = 0; t < session.turns.length; t++) {
      const turnCalls = [];
      const prompt = async () => {
        const started = performance.now();
        const view = await engine.assemble({ ...IDS, messages: history.slice(), tokenBudget: budget, model: "gpt-4o" });
        const ms = performance.now() - started;
        const tokens = measure(view.messages, view.systemPromptAddition);
        const call = {
          turn: t + 1,
          tokens,
          estimated: view.estimatedTokens,
          ms,
          replanned: view.ledger?.plan.replanned ?? null,
          kept: view.messages.length,
          ...(keepViews ? { view } : {}),
        };
        turnCalls.push(call);
        return call;
      };
      const messages = await driveTurn(session.turns[t], history, prompt);
      await engine.commitTurn({ ...IDS, advancementKey: `turn-${t + 1}`, messages });
      for (const c of turnCalls) calls.push(c);
      turns.push(turnRecord(t + 1, turnCalls));
      onTurn?.(t + 1, turnCalls);
    }
  } finally {
    await bench.cleanup();
  }
  return { turns, calls };
}

/**
 * Replays with a pure function `view(history)` standing in for the engine
 * (legacy pass-through, naive tail truncation).
 * @returns {Promise<{ turns: object[], calls: object[] }>}
 */
export async function replayFunction(session, { view, measure }) {
  const history = [];
  const turns = [];
  const calls = [];
  for (let t = 0; t < session.turns.length; t++) {
    const turnCalls = [];
    await driveTurn(session.turns[t], history, () => {
      const messages = view(history);
      turnCalls.push({ turn: t + 1, tokens: measure(messages), kept: messages.length, messages });
    });
    for (const c of turnCalls) calls.push(c);
    turns.push(turnRecord(t + 1, turnCalls));
  }
  return { turns, calls };
}
