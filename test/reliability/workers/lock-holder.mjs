// Takes a file lock the way the ledger does, says so in a marker file, and holds
// it until killed: the parent SIGKILLs it to leave an abandoned lock behind.
import { writeFileSync } from "node:fs";
import { withFileLock } from "../../../src/fs/lock.ts";

const { file, marker, staleMs } = JSON.parse(process.argv[2]);
setInterval(() => undefined, 60_000);
await withFileLock(
  file,
  async () => {
    writeFileSync(marker, String(process.pid));
    await new Promise(() => undefined);
  },
  staleMs === undefined ? {} : { staleMs },
);
