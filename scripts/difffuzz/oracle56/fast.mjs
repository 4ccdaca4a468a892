// A faster OpenClaw 2026.5.6 oracle for many comparisons (the differential
// fuzzer). It runs the stock shared harness (OC_STOCK_HARNESS, i.e.
// ../shared/oracle/oc-oracle.mjs: same modes, same `batch` job format and
// answers) after two changes that only skip repeated work:
//
// 1. dist/plugin-cache-primitives-*.js, function
//    resolveConfigScopedRuntimeCacheValue(params): without params.config it
//    returns params.load() and caches nothing, so every sanitize/payload job
//    rediscovers every provider plugin on disk (about 2 s a job). Its callers
//    (provider-runtime-*.js resolveProviderRuntimePlugin, cache
//    providerRuntimePluginCache; capability-provider-runtime-*.js, cache
//    capabilityProviderSnapshotCache) pass no config here because the harness
//    passes env: {}. The patch caches that no-config case per cache map
//    (params.cache) under OpenClaw's own key (params.key, which already holds
//    the provider, the plugin control-plane fingerprint of env and workspace,
//    and the load options), exactly as the config case does.
// 2. Read-only file-system calls (readFileSync, readdirSync, statSync,
//    lstatSync, existsSync, realpathSync) on paths under the install root
//    (OC_ORACLE_ROOT) are memoised: nothing writes there while the oracle
//    runs. Results are copied out so a caller cannot change the cache.
//
// Check it against the stock oracle before trusting it:
// scripts/difffuzz/oracle56_test.go (OC_LIVE_ORACLE=1) compares answers byte
// for byte. OC_FAST_NOFS=1 turns change 2 off.
import fs from "node:fs";
import module from "node:module";
import path from "node:path";

const stock = process.env.OC_STOCK_HARNESS;
const root = process.env.OC_ORACLE_ROOT;
if (!stock || !root) { console.error("fast.mjs: OC_STOCK_HARNESS and OC_ORACLE_ROOT must be set (run ./oracle)"); process.exit(2); }

// Change 1: patch the cache primitive's source as it loads.
const primitives = /\/openclaw\/dist\/plugin-cache-primitives-[^/]*\.js$/;
const original = "if (!params.config) return params.load();";
const replacement = [
  "if (!params.config) {",
  "  let m = __ocNoConfig.get(params.cache);",
  "  if (!m) { m = new Map(); __ocNoConfig.set(params.cache, m); }",
  "  if (m.has(params.key)) return m.get(params.key);",
  "  const loaded = params.load();",
  "  m.set(params.key, loaded);",
  "  return loaded;",
  "}",
].join("\n");
let patched = false;
module.registerHooks({
  load(url, context, nextLoad) {
    const result = nextLoad(url, context);
    if (!primitives.test(url)) return result;
    const src = typeof result.source === "string" ? result.source : Buffer.from(result.source).toString("utf8");
    if (!src.includes(original)) throw new Error(`fast.mjs: ${url} no longer holds "${original}": not OpenClaw 2026.5.6?`);
    patched = true;
    return { ...result, source: "const __ocNoConfig = new WeakMap();\n" + src.replace(original, replacement) };
  },
});

// Change 2: memoise read-only file-system calls under the install root.
if (process.env.OC_FAST_NOFS !== "1") {
  const under = path.resolve(root) + path.sep;
  const copy = (v) => {
    if (Buffer.isBuffer(v)) return Buffer.from(v);
    if (Array.isArray(v)) return v.slice();
    if (v instanceof fs.Stats) return Object.assign(Object.create(Object.getPrototypeOf(v)), v);
    return v; // strings, booleans
  };
  const memo = (name) => {
    const fn = fs[name];
    const cache = new Map();
    fs[name] = Object.assign(function (p, ...rest) {
      let abs;
      if (typeof p === "string") abs = path.resolve(p);
      else if (p instanceof URL && p.protocol === "file:") abs = path.resolve(decodeURIComponent(p.pathname));
      if (!abs || !(abs + path.sep).startsWith(under) || rest.some((r) => typeof r === "function")) return fn.call(this, p, ...rest);
      let opts;
      try { opts = JSON.stringify(rest); } catch { return fn.call(this, p, ...rest); }
      const key = abs + "\0" + opts;
      let hit = cache.get(key);
      if (!hit) {
        try { hit = { v: fn.call(this, p, ...rest) }; } catch (e) { hit = { e }; }
        // Dirents and anything else not plainly copyable are not cached.
        if (hit.v && Array.isArray(hit.v) && hit.v.some((x) => typeof x !== "string")) return hit.v;
        cache.set(key, hit);
      }
      if (hit.e) throw hit.e;
      return copy(hit.v);
    }, fn); // keeps properties such as realpathSync.native
  };
  for (const name of ["readFileSync", "readdirSync", "statSync", "lstatSync", "existsSync", "realpathSync"]) memo(name);
  module.syncBuiltinESMExports();
}

await import(stock);
if (!patched && process.env.OC_FAST_REQUIRE_PATCH === "1") throw new Error("fast.mjs: the cache primitive was never loaded");
