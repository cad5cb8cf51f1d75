import vm from "node:vm";

// One empty context serves every call: the guarded function runs in its own realm, the context only hosts the call.
let context: vm.Context | undefined;
const script = new vm.Script("run()");

/**
 * Runs `fn` synchronously and stops it after `ms` milliseconds even inside a
 * single regular-expression execution: V8 interrupts the isolate from its
 * watchdog thread (the `timeout` of `node:vm`), which a deadline checked
 * between steps cannot do. Returns `{ done: false }` when stopped; other
 * errors propagate. State `fn` wrote before the stop stays readable.
 */
export function runWithTimeLimit<T>(fn: () => T, ms: number): { done: true; value: T } | { done: false } {
  context ??= vm.createContext({ run: undefined });
  (context as { run?: () => T }).run = fn;
  try {
    return { done: true, value: script.runInContext(context, { timeout: Math.max(1, Math.ceil(ms)) }) as T };
  } catch (err) {
    if ((err as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return { done: false };
    throw err;
  } finally {
    (context as { run?: () => T }).run = undefined;
  }
}
