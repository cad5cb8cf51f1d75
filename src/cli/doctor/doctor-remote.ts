import { probeRemoteStore } from "../../artifacts/index.js";
import { resolveAgentSettings } from "../../config/parse-config.js";
import type { LedgerConfig } from "../../config/schema.js";
import { artifactRoot } from "../../state/paths.js";
import { readAgentStore } from "../core/agent-store.js";
import type { DoctorFinding } from "./doctor-types.js";
import { listLedgerAgents } from "../core/ledger-scan.js";

/**
 * With the S3 backend: the bucket's existence (and how to create it), its reachability, credentials and permissions
 * (a tiny write, read and delete) and each agent's upload backlog. Nothing for the file store.
 */
export async function checkRemoteStore(
  root: string,
  config: LedgerConfig,
  env: NodeJS.ProcessEnv,
): Promise<DoctorFinding[]> {
  const settings = config.store;
  const probe = await probeRemoteStore(settings, env);
  if (!probe || !settings.s3) return [];
  const { bucket, region, endpoint } = settings.s3;
  const out: DoctorFinding[] = [];
  if (probe.ok || probe.missingBucket)
    out.push({
      check: "bucket",
      level: probe.ok ? "ok" : "error",
      message: probe.ok
        ? `bucket ${bucket} exists`
        : `bucket ${bucket} does not exist; context-ledger never creates one: create it once, private and without versioning, with the provider's tools, e.g. \`aws s3api create-bucket --bucket ${bucket} --region ${region}${endpoint ? ` --endpoint-url ${endpoint}` : ""}\` or \`s3cmd mb s3://${bucket}\` (docs/operator-guide.md, "Creating the bucket")`,
    });
  out.push({
    check: "remote-store",
    level: probe.ok ? "ok" : "error",
    message: `${probe.location}: ${probe.message} (${probe.ms} ms)${probe.ok ? "" : "; check store.s3 (endpoint, bucket, region, pathStyle) and the credentials in the environment variables it names"}`,
  });
  for (const agentId of await listLedgerAgents(root)) {
    const backlog = await readAgentStore({ config, ledgerRoot: root, agentId, env }, async (store) =>
      store.pendingUploads?.(),
    );
    if (!backlog) continue;
    const { spoolBytes } = resolveAgentSettings(config, agentId).store;
    out.push({
      check: "upload-spool",
      level: backlog.objects === 0 ? "ok" : backlog.bytes > spoolBytes * 0.8 ? "error" : "warn",
      message:
        backlog.objects === 0
          ? `${agentId}: nothing waits to upload`
          : `${agentId}: ${backlog.objects} objects (${backlog.bytes} bytes of the ${spoolBytes}-byte spool) wait to upload; the running gateway uploads them when the bucket answers`,
      path: artifactRoot(root, agentId),
    });
  }
  return out;
}
