import type { StoreBackendSettings } from "../../artifacts/open-store.js";
import { probeRemoteStore } from "../../artifacts/remote-probe.js";
import { readSpoolBacklog } from "../../artifacts/tiered-backend.js";
import { artifactRoot } from "../../state/paths.js";
import type { DoctorFinding } from "./doctor-types.js";
import { listLedgerAgents } from "../core/ledger-scan.js";

/**
 * With the S3 backend: the bucket's reachability, credentials and permissions
 * (a tiny write, read and delete) and each agent's upload backlog. Nothing for the file store.
 */
export async function checkRemoteStore(
  root: string,
  settings: StoreBackendSettings,
  env: NodeJS.ProcessEnv,
): Promise<DoctorFinding[]> {
  const probe = await probeRemoteStore(settings, env);
  if (!probe) return [];
  const out: DoctorFinding[] = [
    {
      check: "remote-store",
      level: probe.ok ? "ok" : "error",
      message: `${probe.location}: ${probe.message} (${probe.ms} ms)${probe.ok ? "" : "; check store.s3 (endpoint, bucket, region, pathStyle) and the credentials in the environment variables it names"}`,
    },
  ];
  for (const agentId of await listLedgerAgents(root)) {
    const folder = artifactRoot(root, agentId);
    const backlog = readSpoolBacklog(folder);
    out.push({
      check: "upload-spool",
      level: backlog.objects === 0 ? "ok" : backlog.bytes > settings.spoolBytes * 0.8 ? "error" : "warn",
      message:
        backlog.objects === 0
          ? `${agentId}: nothing waits to upload`
          : `${agentId}: ${backlog.objects} objects (${backlog.bytes} bytes of the ${settings.spoolBytes}-byte spool) wait to upload; the running gateway uploads them when the bucket answers`,
      path: folder,
    });
  }
  return out;
}
