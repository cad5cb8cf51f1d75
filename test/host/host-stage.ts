/**
 * 2026.4.24's bundled-plugin stage, filled before a line file needs it. A fresh 2026.4.24 npm-installs its bundled
 * plugins' runtime dependencies (about 150 packages, 210 MB) on its first embedded turn; in a clean clone's run that
 * first turn was a line file's, and its legacy `big-output` took 55 s instead of about 15. The installer
 * (`host-install.ts`) calls this under the release's install lock, so the global setup stages while the unit files
 * run and a line file that needs the release waits for it.
 */
import { createHostEnv } from "./host-env.js";
import { isStaged, type InstalledHost } from "./host-install.js";
import { startMockModel } from "./mock-model.js";
import { runOpenclaw } from "./openclaw-cli.js";

/**
 * Runs one embedded turn (`openclaw agent --local`) of `host` on a throwaway state dir against a mock model, at the
 * lowest CPU and I/O priority, which stages the bundled plugins' dependencies into `host.stageDir`. Throws with the
 * command's output when the stage is still empty after it.
 */
export async function stageBundledPlugins(host: InstalledHost, installRoot: string): Promise<void> {
  const mock = await startMockModel();
  const env = await createHostEnv({ version: host.version, host, baseUrl: mock.baseUrl, engine: "legacy" });
  try {
    const ran = await runOpenclaw(env, ["agent", "--local", "--session-id", "stage", "-m", "Stage.", "--json"], {
      timeoutMs: 600_000,
      lowPriority: true,
    });
    if (!isStaged(installRoot))
      throw new Error(
        `Expected \`openclaw agent --local\` to stage ${host.version}'s bundled plugins in ${installRoot}, got exit ` +
          `${String(ran.code)}${ran.timedOut ? " (timed out)" : ""}\n${ran.stderr.slice(-2000)}`,
      );
  } finally {
    await env.cleanup();
    await mock.close();
  }
}
