import { createReadStream } from "node:fs";
import type { ListObjectsV2CommandOutput } from "@aws-sdk/client-s3";
import { LedgerError } from "../../errors.js";
import type { ObjectInfo, PutBody, StoreBackend } from "./backend-types.js";

/** Options of {@link createS3Backend}. */
export interface S3BackendOptions {
  /** Endpoint URL for a server other than AWS (Ceph RGW, R2, B2, MinIO). @default undefined (AWS) */
  endpoint?: string;
  bucket: string;
  /** Key prefix inside the bucket (a trailing `/` is added). @default "" */
  prefix?: string;
  /** @default "us-east-1" */
  region?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most non-AWS servers need. @default false */
  pathStyle?: boolean;
  /** Explicit credentials; otherwise the SDK's chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Deadline of one call, retries included. @default 30000 */
  timeoutMs?: number;
  /** Attempts per request (the SDK's standard retry: exponential backoff with jitter). @default 4 */
  maxAttempts?: number;
  /** Objects at least this big are uploaded in parts of this size, streamed from the file. @default 16777216 */
  partBytes?: number;
}

const MIN_PART_BYTES = 5 * 1024 * 1024;

interface SdkError {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

function status(err: unknown): number | undefined {
  return (err as SdkError | undefined)?.$metadata?.httpStatusCode;
}

function isMissing(err: unknown): boolean {
  const e = err as SdkError | undefined;
  return status(err) === 404 || e?.name === "NoSuchKey" || e?.name === "NotFound";
}

/**
 * A {@link StoreBackend} on an S3-compatible object store through
 * `@aws-sdk/client-s3`. Create-once writes send `If-None-Match: *` (412:
 * already there); a server that does not implement it (501) gets HEAD then
 * PUT, which is safe for blobs because a blob's key names its content.
 * Objects of `partBytes` or more go up as a multipart upload streamed from the
 * file, part by part. Every call has a deadline and the SDK's retries with
 * backoff; checksums are sent only where an operation requires them (Ceph RGW
 * 16 refuses the SDK's streamed checksum trailers). Objects are private (no
 * ACL is ever granted). Credentials never appear in `location` or in errors.
 */
export function createS3Backend(options: S3BackendOptions): StoreBackend {
  // The SDK loads on first use: a gateway on the file backend never pays for it.
  const ready = buildS3Backend(options);
  ready.catch(() => undefined);
  const prefix = options.prefix ? `${options.prefix.replace(/\/+$/, "")}/` : "";
  return {
    kind: "s3",
    location: `s3://${options.bucket}/${prefix}`.replace(/\/$/, ""),
    putOnce: async (key, body) => (await ready).putOnce(key, body),
    getRange: async (key, offset, length) => (await ready).getRange(key, offset, length),
    head: async (key) => (await ready).head(key),
    async *list(listPrefix) {
      yield* (await ready).list(listPrefix);
    },
    delete: async (key) => (await ready).delete(key),
  };
}

async function buildS3Backend(options: S3BackendOptions): Promise<StoreBackend> {
  const sdk = await import("@aws-sdk/client-s3");
  const timeoutMs = options.timeoutMs ?? 30_000;
  const partBytes = Math.max(MIN_PART_BYTES, options.partBytes ?? 16 * 1024 * 1024);
  const prefix = options.prefix ? `${options.prefix.replace(/\/+$/, "")}/` : "";
  const bucket = options.bucket;
  const client = new sdk.S3Client({
    endpoint: options.endpoint,
    region: options.region ?? "us-east-1",
    forcePathStyle: options.pathStyle ?? false,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 4,
    retryMode: "standard",
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: { connectionTimeout: Math.min(5_000, timeoutMs), requestTimeout: timeoutMs },
  });
  const location = `s3://${bucket}/${prefix}`.replace(/\/$/, "");
  let ifNoneMatch = true;

  function failed(op: string, key: string, err: unknown): LedgerError {
    const e = err as SdkError & { message?: string; code?: string };
    // A network failure is a bare `Error`: its code or message (ECONNREFUSED, a timeout) is the cause worth naming.
    const generic = !e?.Code && (e?.name === undefined || e.name === "Error");
    const what = generic ? (e?.code ?? e?.message ?? "error") : (e?.Code ?? e?.name ?? "error");
    const code = status(err) === 403 ? "artifact_forbidden" : "io_failed";
    return new LedgerError(
      code,
      `Expected ${op} of \`${key}\` in ${location} to succeed, got ${what}${status(err) ? ` (HTTP ${status(err)})` : ""}`,
      { cause: err },
    );
  }

  /** Each call's deadline, retries included. */
  const deadline = () => ({ abortSignal: AbortSignal.timeout(timeoutMs) });

  async function head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: prefix + key }), deadline());
      return { key, size: out.ContentLength ?? 0, modifiedMs: out.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw failed("HEAD", key, err);
    }
  }

  async function putSingle(key: string, body: PutBody): Promise<boolean> {
    const payload = "bytes" in body ? body.bytes : createReadStream(body.file);
    const length = "bytes" in body ? body.bytes.byteLength : body.size;
    try {
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: bucket,
          Key: prefix + key,
          Body: payload,
          ContentLength: length,
          ...(ifNoneMatch ? { IfNoneMatch: "*" } : {}),
        }),
        deadline(),
      );
      return true;
    } catch (err) {
      if (status(err) === 412 || (err as SdkError).name === "PreconditionFailed") return false;
      if (ifNoneMatch && status(err) === 501) {
        ifNoneMatch = false;
        if (await head(key)) return false;
        return putSingle(key, "bytes" in body ? body : { ...body });
      }
      throw failed("PUT", key, err);
    } finally {
      if (!("bytes" in body)) (payload as ReturnType<typeof createReadStream>).destroy();
    }
  }

  async function putMultipart(key: string, file: string, size: number): Promise<boolean> {
    // Two writers of one blob key upload the same bytes (the key names them): checking first is enough.
    if (await head(key)) return false;
    let uploadId: string | undefined;
    try {
      const created = await client.send(
        new sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key: prefix + key }),
        deadline(),
      );
      uploadId = created.UploadId;
      const parts: Array<{ ETag?: string; PartNumber: number }> = [];
      for (let start = 0, n = 1; start < size; start += partBytes, n++) {
        const end = Math.min(size, start + partBytes);
        const stream = createReadStream(file, { start, end: end - 1 });
        try {
          const out = await client.send(
            new sdk.UploadPartCommand({
              Bucket: bucket,
              Key: prefix + key,
              UploadId: uploadId,
              PartNumber: n,
              Body: stream,
              ContentLength: end - start,
            }),
            deadline(),
          );
          parts.push({ ETag: out.ETag, PartNumber: n });
        } finally {
          stream.destroy();
        }
      }
      await client.send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: prefix + key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
        deadline(),
      );
      return true;
    } catch (err) {
      if (uploadId)
        await client
          .send(
            new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: prefix + key, UploadId: uploadId }),
            deadline(),
          )
          .catch(() => undefined);
      throw failed("multipart upload", key, err);
    }
  }

  return {
    kind: "s3",
    location,
    async putOnce(key, body) {
      if ("file" in body && body.size >= partBytes) return putMultipart(key, body.file, body.size);
      if (!ifNoneMatch && (await head(key))) return false;
      return putSingle(key, body);
    },
    async getRange(key, offset, length) {
      if (length === 0) return Buffer.alloc(0);
      const range =
        length === undefined ? (offset > 0 ? `bytes=${offset}-` : undefined) : `bytes=${offset}-${offset + length - 1}`;
      try {
        const out = await client.send(
          new sdk.GetObjectCommand({ Bucket: bucket, Key: prefix + key, Range: range }),
          deadline(),
        );
        const bytes = (await out.Body?.transformToByteArray()) ?? new Uint8Array();
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      } catch (err) {
        if (isMissing(err)) return undefined;
        // A range starting at or past the end: nothing there, as a file read past its end.
        if (status(err) === 416) return Buffer.alloc(0);
        throw failed("GET", key, err);
      }
    },
    head,
    async *list(listPrefix) {
      let token: string | undefined;
      do {
        let out: ListObjectsV2CommandOutput;
        try {
          out = await client.send(
            new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix + listPrefix, ContinuationToken: token }),
            deadline(),
          );
        } catch (err) {
          throw failed("LIST", listPrefix, err);
        }
        for (const o of out.Contents ?? []) {
          if (!o.Key?.startsWith(prefix)) continue;
          yield { key: o.Key.slice(prefix.length), size: o.Size ?? 0, modifiedMs: o.LastModified?.getTime() ?? 0 };
        }
        token = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (token);
    },
    async delete(key) {
      if (!(await head(key))) return false;
      try {
        await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: prefix + key }), deadline());
        return true;
      } catch (err) {
        if (isMissing(err)) return false;
        throw failed("DELETE", key, err);
      }
    },
  };
}
