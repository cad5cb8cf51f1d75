import path from "node:path";
import { describe, expect, it } from "vitest";
import { createArtifactStore } from "../../src/artifacts/index.js";
import { useTempDir } from "../support/temp-dir.js";
import { raceLateWriter, startLateWriter } from "./late-writer.js";

const tmp = useTempDir("clean-late-writer-");

describe("session clean against a writer that opened the transcript and writes later", () => {
  it("refuses, naming the writer's pid, and the line written 300 ms after the open is kept", async () => {
    const writer = await startLateWriter();
    try {
      const store = createArtifactStore({ root: path.join(tmp(), "artifacts") });
      const outcome = await raceLateWriter({
        dir: tmp(),
        name: "late",
        writer,
        store,
        steps: [{ pause: 300, gap: 0 }],
        cleanAfterMs: 0,
      });
      expect(outcome).toMatchObject({ status: "refused", lost: 0, reordered: false, sessionLinesLost: 0 });
      expect(outcome.reason).toContain(`pid ${writer.pid}`);
    } finally {
      await writer.stop();
    }
  });
});
