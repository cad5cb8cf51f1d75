/**
 * Global setup of the host project: starts installing every host line missing from
 * `.cache/` at once (one `npm install` each, ~30-40 s), and staging 2026.4.24's bundled
 * plugins, while the unit tests run; the line files wait for their release through
 * `ensureHost`'s cross-process lock.
 * Teardown waits for the installs, so none is cut off half-way.
 */
import { ensureHost, HOST_LINES } from "./host-install.js";

let installs: Promise<unknown> | undefined;

export function setup(): void {
  const t0 = Date.now();
  installs = Promise.allSettled(HOST_LINES.map((version) => ensureHost(version))).then((results) => {
    const failed = results.filter((r) => r.status === "rejected").length;
    console.log(
      `[host setup] ${HOST_LINES.length - failed}/${HOST_LINES.length} host lines ready in .cache/ after ${((Date.now() - t0) / 1000).toFixed(1)}s`,
    );
    return results;
  });
}

export async function teardown(): Promise<void> {
  await installs;
}
