/**
 * Global setup of the host project: starts installing every host line missing from
 * `.cache/` at once (one `npm install` each, ~30-40 s), while the unit tests run; the
 * line files wait for their release through `ensureHost`'s cross-process lock.
 * Teardown waits for the installs, so none is cut off half-way.
 */
import { ensureHost, HOST_LINES } from "./host-install.js";

let installs: Promise<unknown> | undefined;

export function setup(): void {
  installs = Promise.allSettled(HOST_LINES.map((version) => ensureHost(version)));
}

export async function teardown(): Promise<void> {
  await installs;
}
