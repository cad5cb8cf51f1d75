import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { promises as fsp } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The Debian packages the throwaway gateway needs, and the one command that installs them. */
export const CEPH_PACKAGES = ["ceph-mon", "ceph-osd", "radosgw", "ceph-common"] as const;
export const CEPH_INSTALL_COMMAND = `apt-get update && apt-get install -y --no-install-recommends ${CEPH_PACKAGES.join(" ")}`;

const BINARIES = ["ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "ceph", "monmaptool", "ceph-authtool"];

/** True when every Ceph binary the gateway needs is on PATH. */
export function cephAvailable(): boolean {
  return BINARIES.every((bin) => spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status === 0);
}

/** A running throwaway RGW: an S3 endpoint on 127.0.0.1 with one user. */
export interface CephRgw {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** The PIDs this start spawned (monitor, OSD, gateway). */
  readonly pids: number[];
  /** Milliseconds from the call to the first S3 answer and the user made. */
  startMs: number;
  /** Kills the gateway only (SIGKILL), keeping the cluster: for outage tests. */
  killGateway(): Promise<void>;
  /** Starts the gateway again on the same port. */
  restartGateway(): Promise<void>;
  /** Kills exactly the PIDs it started and removes its folder. */
  stop(): Promise<void>;
}

/** Options of {@link startCephRgw}. */
export interface CephRgwOptions {
  /** RAM the memstore OSD may use. @default 1 GiB */
  memstoreBytes?: number;
  /** Give up starting after this long. @default 60000 */
  timeoutMs?: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${out.slice(-2000)}`));
    });
  });
}

function conf(dir: string, monPort: number, rgwPort: number, memstoreBytes: number): string {
  return `[global]
fsid = ${randomUUID()}
mon host = v2:127.0.0.1:${monPort}
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
keyring = ${dir}/keyring
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
pid file = ${dir}/run/$name.pid
crash dir = ${dir}/crash
mon data = ${dir}/mon/$name
osd data = ${dir}/osd/$name
rgw data = ${dir}/rgw/$name
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000

[mon]
paxos propose interval = 0.05
paxos min wait = 0.01

[osd]
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}
osd op num shards = 1

[client.rgw.0]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
ms mon client mode = crc
rgw gc obj min wait = 30
rgw gc processor period = 30
`;
}

async function waitForHttp(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`Expected RGW to answer at ${url}, got nothing before the deadline`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Starts a one-node Ceph cluster (1 monitor, 1 memstore OSD: no disk, data in
 * RAM) and a RADOS Gateway on a free 127.0.0.1 port, with auth off, in a temp
 * folder; creates an S3 user. Stop it with `stop()`: it kills exactly the
 * PIDs it started and removes the folder.
 */
export async function startCephRgw(options: CephRgwOptions = {}): Promise<CephRgw> {
  const started = Date.now();
  const deadline = started + (options.timeoutMs ?? 60_000);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "ledger-ceph-"));
  const children: ChildProcess[] = [];
  let gateway: ChildProcess | undefined;
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const cfg = path.join(dir, "ceph.conf");
  const c = ["-c", cfg];
  const spawnDaemon = (cmd: string, args: string[]): ChildProcess => {
    const child = spawn(cmd, [...args, ...c], { stdio: "ignore", detached: false });
    children.push(child);
    return child;
  };
  const stop = async (): Promise<void> => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await Promise.all(
      children.map((child) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise<void>((r) => child.once("exit", () => r()))
          : Promise.resolve(),
      ),
    );
    await fsp.rm(dir, { recursive: true, force: true });
  };
  try {
    for (const sub of ["run", "log", "crash", "mon/mon.a", "osd/osd.0", "rgw/client.rgw.0"])
      await fsp.mkdir(path.join(dir, sub), { recursive: true });
    await fsp.writeFile(cfg, conf(dir, monPort, rgwPort, options.memstoreBytes ?? 1024 ** 3));
    const keyring = path.join(dir, "mon.keyring");
    const left = () => Math.max(1000, deadline - Date.now());
    await run(
      "ceph-authtool",
      ["--create-keyring", keyring, "--gen-key", "-n", "mon.", "--cap", "mon", "allow *"],
      left(),
    );
    const fsid = /fsid = (\S+)/.exec(await fsp.readFile(cfg, "utf8"))?.[1] as string;
    const monmap = path.join(dir, "monmap");
    await run("monmaptool", ["--create", "--fsid", fsid, "--addv", "a", `[v2:127.0.0.1:${monPort}]`, monmap], left());
    await run("ceph-mon", ["--mkfs", "-i", "a", "--monmap", monmap, "--keyring", keyring, ...c], left());
    spawnDaemon("ceph-mon", ["-f", "-i", "a"]);
    const osdUuid = randomUUID();
    await run("ceph", [...c, "--connect-timeout", "30", "osd", "new", osdUuid, "0"], left());
    await run("ceph-osd", ["-i", "0", "--mkfs", "--osd-uuid", osdUuid, ...c], left());
    spawnDaemon("ceph-osd", ["-f", "-i", "0"]);
    gateway = spawnDaemon("radosgw", ["-n", "client.rgw.0", "-f"]);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await waitForHttp(endpoint, deadline);
    const accessKeyId = `LEDGER${randomBytes(7).toString("hex").toUpperCase()}`;
    const secretAccessKey = randomBytes(20).toString("hex");
    await run(
      "radosgw-admin",
      [
        ...c,
        "user",
        "create",
        "--uid=ledger",
        "--display-name=ledger",
        `--access-key=${accessKeyId}`,
        `--secret-key=${secretAccessKey}`,
      ],
      left(),
    );
    return {
      endpoint,
      accessKeyId,
      secretAccessKey,
      region: "us-east-1",
      get pids() {
        return children.map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
      },
      startMs: Date.now() - started,
      async killGateway() {
        const g = gateway;
        if (!g || g.exitCode !== null || g.signalCode !== null) return;
        const exited = new Promise<void>((r) => g.once("exit", () => r()));
        g.kill("SIGKILL");
        await exited;
      },
      async restartGateway() {
        gateway = spawnDaemon("radosgw", ["-n", "client.rgw.0", "-f"]);
        await waitForHttp(endpoint, Date.now() + 30_000);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Creates `bucket` on `rgw` with an admin client (RGW 16.2 needs the SDK's checksums only when required). */
export async function createRgwBucket(rgw: CephRgw, bucket: string): Promise<void> {
  const admin = new S3Client({
    endpoint: rgw.endpoint,
    region: rgw.region,
    forcePathStyle: true,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  try {
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    admin.destroy();
  }
}
