// One turn of the synthetic session the way the 2026.9 host drives its tool loop:
// a model request after the user message and after every tool result, then the answer.

/**
 * Appends one turn to `history` step by step, awaiting `onRequest()` at every model
 * request, and returns the turn's messages (what `commitTurn` receives).
 * @param {{ user: object, steps: { call: object, result: object }[], answer: object }} turn
 * @param {object[]} history the session so far; grows by the turn's messages
 * @param {() => unknown} onRequest one model request on the history as it stands
 * @returns {Promise<object[]>}
 */
export async function driveTurn(turn, history, onRequest) {
  const turnMessages = [turn.user];
  history.push(turn.user);
  await onRequest();
  for (const step of turn.steps) {
    history.push(step.call, step.result);
    turnMessages.push(step.call, step.result);
    await onRequest();
  }
  history.push(turn.answer);
  turnMessages.push(turn.answer);
  return turnMessages;
}
