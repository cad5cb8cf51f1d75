import { isLedgerError } from "../../src/errors.js";

/** What a call ends with: its `LedgerError` code, or "ok" when it resolves (any other error is rethrown). */
export async function errorCodeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (isLedgerError(err)) return err.code;
    throw err;
  }
  return "ok";
}
