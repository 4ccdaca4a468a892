#!/usr/bin/env python3
"""Writes the 2026.9.6 rule transcripts of this folder: one linear session per
9.6 sanitize step (see pkg/replay/sanitize/sanitize96/pipeline_rules_test.go). Run it here."""
import json
import zlib

BASE = 1767225600000  # 2026-01-01T00:00:00Z
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}}
ZERO = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def iso(ms):
    import datetime
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class T:
    def __init__(self, name):
        self.name, self.n, self.lines, self.parent = name, 0, [], None
        self.lines.append({"type": "session", "version": 3, "id": "00000000-0000-4000-8000-%012d" % (zlib.crc32(name.encode()) % 10**12),
                           "timestamp": iso(BASE), "cwd": "/tmp/oc-test"})

    def entry(self, e):
        self.n += 1
        eid = "e%03d" % self.n
        ms = BASE + self.n * 1000
        out = {"type": e.pop("type"), "id": eid, "parentId": self.parent, "timestamp": iso(ms)}
        out.update(e)
        self.lines.append(out)
        self.parent = eid
        return eid, ms

    def msg(self, m):
        ms = BASE + (self.n + 1) * 1000
        m.setdefault("timestamp", ms)
        return self.entry({"type": "message", "message": m})[0]

    def user(self, text):
        return self.msg({"role": "user", "content": text})

    def asst(self, content, stop="stop", usage=USAGE, provider="anthropic", api="anthropic-messages", model="claude-sonnet-4-5", **kw):
        m = {"role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
             "usage": usage, "stopReason": stop}
        m.update(kw)
        return self.msg(m)

    def result(self, cid, text="ok", name="read", **kw):
        m = {"role": "toolResult", "toolCallId": cid, "toolName": name, "content": [{"type": "text", "text": text}], "isError": False}
        m.update(kw)
        return self.msg(m)

    def write(self):
        with open(self.name, "w") as f:
            for l in self.lines:
                f.write(json.dumps(l, separators=(",", ":"), ensure_ascii=False) + "\n")


def text(s):
    return {"type": "text", "text": s}


def thinking(s, sig="c2lnbmF0dXJl"):
    b = {"type": "thinking", "thinking": s}
    if sig is not None:
        b["thinkingSignature"] = sig
    return b


def call(cid, name="read", **args):
    return {"type": "toolCall", "id": cid, "name": name, "arguments": args or {"path": "a.txt"}}


# Failed and empty assistant turns: 9.6 drops them (5.6 gave them a fallback text).
t = T("failed-turns.jsonl")
t.user("first question")
t.asst([], stop="error", errorMessage="overloaded")
t.user("second question")
t.asst([], usage=ZERO)
t.user("third question")
t.asst([text("[assistant turn failed before producing content]")], stop="error", errorMessage="timeout")
t.user("fourth question")
t.asst("   ", stop="error")
t.user("fifth question")
t.asst([text("a real answer")])
t.user("last question")
t.write()

# Silent, reasoning-only and duplicate turns.
t = T("silent-reasoning.jsonl")
t.user("one")
t.asst([text("NO_REPLY")])
t.user("two")
t.asst([thinking("thinking about it"), text("  ")], stop="length")
t.user("three")
t.asst([thinking("quiet"), text("NO_REPLY")])
t.user("four")
t.asst("<think>let me see</think>NO_REPLY")
t.user("five")
t.asst([text("the answer is 42"), {"type": "image", "data": "AAAA", "mimeType": "image/png"}])
t.asst([text("the answer is 42")], usage=ZERO)
t.user("six")
t.asst([text("mirrored")], provider="openclaw", model="delivery-mirror")
t.asst([text("marked mirror")], openclawDeliveryMirror={"kind": "channel-final"})
t.user("seven")
t.write()

# Consecutive turns: 9.6 merges assistant turns before stripping dangling
# calls, and keeps user turns apart under append-only runtime context.
t = T("turn-merge.jsonl")
t.user("first")
t.user([text("second, right after")])
t.asst([text("part one")])
t.asst([text("part two"), call("toolu_merge1")])
t.result("toolu_merge1")
t.asst([call("toolu_dangling")])
t.user("third")
t.user("fourth")
t.asst([thinking("latest thinking"), text("done")])
t.user("fifth")
t.write()

# Thinking signatures from before the latest compaction.
t = T("compaction-signatures.jsonl")
u1 = t.user("before compaction")
t.asst([thinking("old thought", sig="b2xkc2ln"), text("old answer")])
t.user("second")
t.asst([{"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="}, thinking("unsigned", sig=None), text("second answer")])
t.entry({"type": "compaction", "summary": "Talked about things.", "firstKeptEntryId": u1, "tokensBefore": 1234})
t.user("after compaction")
t.asst([thinking("new thought", sig="bmV3c2ln"), text("new answer")])
t.user("again")
t.asst([thinking("", sig=" "), text("latest answer")])
t.write()

# Tool results paired per call occurrence.
t = T("occurrence-pairing.jsonl")
t.user("start")
t.asst([call("call_dup"), call("call_dup", name="exec")], stop="toolUse")
t.result("call_dup", "first")
t.result("call_dup", "second", name="exec")
t.result("call_dup", "third (a duplicate)")
t.user("next")
t.asst([call("call_dup")], stop="toolUse")
t.user("interrupting")
t.result("call_dup", "late result")
t.asst([call("call_missing"), call("call_named", name="write")], stop="toolUse")
t.result("call_named", "no toolName", name=" ")
t.asst([call("call_failed")], stop="error")
t.result("call_failed", "result of a failed turn")
t.result("call_nobody", "orphan")
t.user("end")
t.write()

# OpenAI Responses calls: finished calls keep their arguments without
# partialJson; unfinished ones are dropped; ids outside call_*/fc_* are
# normalised.
t = T("responses-calls.jsonl")
R = dict(provider="openai", api="openai-responses", model="gpt-5")
t.user("go")
t.asst([dict(call("call_abc|fc_123"), partialJson='{"path":"a.txt"}')], stop="toolUse", **R)
t.result("call_abc|fc_123")
t.asst([dict(call("call_def|fc_456"), partialJson='{"path":')], stop="toolUse", **R)
t.asst([call("toolu_01AbCdEf.with.dots"), call("call_ok|item_not_fc!"), call("x" * 80)], stop="toolUse", **R)
t.msg({"role": "toolResult", "toolUseId": "toolu_01AbCdEf.with.dots", "toolName": "read", "content": [text("via toolUseId")], "isError": False})
t.result("call_ok|item_not_fc!")
t.result("x" * 80)
t.user("done")
t.write()

# Heartbeat spans.
t = T("heartbeat-span.jsonl")
t.user("[OpenClaw heartbeat poll]")
t.asst([call("call_hb", name="exec")], stop="toolUse")
t.result("call_hb", name="exec")
t.asst([text("HEARTBEAT_OK")])
t.user("a real question")
t.asst([text("a real answer")])
t.user("[OpenClaw cron wake]")
t.asst([text("The disk is 95% full, you should clean it up.")])
t.user("[OpenClaw heartbeat poll]")
t.asst([{"type": "toolCall", "id": "call_resp", "name": "heartbeat_respond", "arguments": {"notify": False}}], stop="toolUse")
t.result("call_resp", name="heartbeat_respond")
t.user("last")
t.write()

# Model switches: reasoning before the latest switch is dropped on the
# Responses APIs.
t = T("model-switch.jsonl")
RS = '{"id":"rs_%s","type":"reasoning","encrypted_content":"enc"}'
snap = lambda p, a, m, ms: t.entry({"type": "custom", "customType": "model-snapshot", "data": {"timestamp": ms, "provider": p, "modelApi": a, "modelId": m}})
snap("openai", "openai-responses", "gpt-5", BASE + 500)
t.user("one")
t.asst([thinking("", sig=RS % "a1"), dict(text("answer one"), textSignature='{"v":1,"id":"msg_1","phase":"final_answer"}')], **R)
snap("anthropic", "anthropic-messages", "claude-sonnet-4-5", BASE + 3500)
t.user("two")
t.asst([thinking("", sig=RS % "a2"), text("answer two")], **R)
_, switch_ms = snap("openai", "openai-responses", "gpt-5", BASE + 6500)
t.user("three")
t.asst([thinking("", sig=RS % "a3"), text("answer three")], timestamp=BASE + 9000, **R)
t.user("four")
t.write()

# A model switch dated "now": the branch's last model snapshot (ollama) is not
# the route asked for, so 9.6 dates the switch Date.now() and every earlier
# turn's replayable reasoning is stale (dropStaleOpenAIReasoning), also on an
# injected assistant turn that names no provider or api.
t = T("injected-reasoning.jsonl")
t.entry({"type": "custom", "customType": "model-snapshot", "data": {"timestamp": BASE + 500, "provider": "ollama", "modelApi": "ollama", "modelId": "llama3:latest"}})
t.user("which model?")
t.msg({"role": "assistant", "content": [thinking("let me think", sig='{"id":"rs_1","type":"reasoning"}'), text("Current: ollama/llama3")],
       "stopReason": "injected", "usage": {"input": 0, "output": 0, "totalTokens": 0}})
t.user("thanks")
t.write()
