/**
 * Planning in two currencies at once. The view must fit the exact BPE budget and the
 * host's own chars/4 budget. Scaling the host's units onto the BPE budget and charging
 * each message the larger of the two costs keeps one budget for the planner: when the
 * charged sum fits, both sums fit (each cost is at most what was charged).
 */

/** Options for {@link dualCurrencyCount}. */
export interface DualCurrencyOptions {
  /** Exact BPE tokens of message `i`. */
  exact: (i: number) => number;
  /** The host's units (weighted chars / 4) of message `i`. */
  host: (i: number) => number;
  /** The planner's budget (exact tokens). */
  exactBudget: number;
  /** Host units the messages may take; undefined when no host estimator binds. */
  hostBudget: number | undefined;
}

/** A per-message cost for the planner that respects both budgets: {@link dualCurrencyCharge} per index. */
export function dualCurrencyCount(options: DualCurrencyOptions): (i: number) => number {
  const { exact, host, exactBudget, hostBudget } = options;
  const charge = dualCurrencyCharge(exactBudget, hostBudget);
  return (i) => charge(exact(i), () => host(i));
}

/**
 * What one message is charged when its exact tokens are known: the larger of its exact
 * tokens and its host units scaled onto the exact budget. `hostUnits` is only called when
 * a host estimator binds.
 */
export function dualCurrencyCharge(
  exactBudget: number,
  hostBudget: number | undefined,
): (exact: number, hostUnits: () => number) => number {
  if (hostBudget === undefined) return (exact) => exact;
  // No room at all in the host's currency: every message costs more than the whole budget.
  if (hostBudget <= 0) return (exact) => Math.max(exact, exactBudget + 1);
  const scale = exactBudget / hostBudget;
  return (exact, hostUnits) => Math.max(exact, Math.ceil(hostUnits() * scale));
}
