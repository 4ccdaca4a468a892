package doctor

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/jsondoc"
	"github.com/openclaw-tools/oc/internal/lazyre"
)

// Classification of a session:<key> cron job (contract §5, research §8).
type Classification string

// The three outcomes. A job whose target is not session:<key> has none ("").
const (
	InChat      Classification = "IN_CHAT"     // delivers to <key>: leave it
	Elsewhere   Classification = "ELSEWHERE"   // delivers to another chat or a webhook: migrate
	Undecidable Classification = "UNDECIDABLE" // report, leave it
)

// Reason codes. Each classification names exactly one.
type Reason string

// IN_CHAT reasons.
const (
	ReasonSameRoute         Reason = "same-route"         // the effective target is <key>'s chat
	ReasonThreadUnspecified Reason = "thread-unspecified" // same chat; <key> pins a thread, the job names none (OpenClaw's share-route rule)
	ReasonNoDelivery        Reason = "no-delivery"        // delivery mode "none": nothing leaves the session
	ReasonMainSession       Reason = "main-session"       // <key> is the agent main session and delivery resolves through it
)

// ELSEWHERE reasons.
const (
	ReasonChannelDiffers   Reason = "channel-differs"
	ReasonRecipientDiffers Reason = "recipient-differs"
	ReasonThreadDiffers    Reason = "thread-differs"
	ReasonAccountDiffers   Reason = "account-differs"
	ReasonWebhook          Reason = "webhook"
	ReasonNamedNoChatRoute Reason = "named-session-no-chat-route"
)

// UNDECIDABLE reasons.
const (
	ReasonInvalidPayload Reason = "invalid-payload-for-session-target"
	ReasonInvalidKey     Reason = "invalid-session-key"
	ReasonAgentMismatch  Reason = "agent-mismatch"
	ReasonCaseOnly       Reason = "case-only-difference"
	ReasonKeyRouteUnkown Reason = "key-route-unknown"
	ReasonNoRoute        Reason = "no-route"
)

// Verdict is the classifier's answer with what it was based on.
type Verdict struct {
	Class  Classification
	Reason Reason
	Key    string // <key>, trimmed
	// KeyAgent owns <key>'s session store.
	KeyAgent string
	// KeyRoute is <key>'s chat (R_K); empty when unknown.
	KeyRoute Route
	// Target is where the job's result goes today (T).
	Target Route
	// Inherited lists the fields of Target that came from a session route
	// rather than the job's own delivery ("channel", "to", "accountId", "threadId").
	Inherited []string
	Mode      string // announce, webhook or none
	Disabled  bool
	// Legacy lists shapes OpenClaw's own doctor normalises; doctor does not
	// rewrite such a row (run `openclaw doctor --fix` first).
	Legacy []string
	Notes  []string
}

// IsSessionTarget reports whether a sessionTarget value names session:<key>
// (the prefix matched case-insensitively, as OpenClaw's doctor does).
func IsSessionTarget(target string) bool {
	t := strings.TrimSpace(target)
	return len(t) >= 8 && strings.EqualFold(t[:8], "session:")
}

// Classify decides whether a session:<key> job delivers to <key>. It is a pure
// function of the job, the session stores and the configuration. Jobs whose
// sessionTarget is not session:<key> get a zero Verdict (Class "").
func Classify(job *jsondoc.Value, ix SessionIndex, cfg Config) Verdict {
	var v Verdict
	target, ok := job.StringOf("sessionTarget")
	if !ok || !IsSessionTarget(target) {
		return v
	}
	trimmed := strings.TrimSpace(target)
	v.Key = strings.TrimSpace(trimmed[8:])
	v.Legacy = legacyShapes(job)
	if e := job.Get("enabled"); e != nil && e.Kind == jsondoc.Bool && !e.Bool {
		v.Disabled = true
	}

	// 1. Preconditions (OpenClaw rejects these at load or run time).
	if v.Key == "" || strings.ContainsAny(v.Key, "/\\\x00") {
		return v.with(Undecidable, ReasonInvalidKey)
	}
	if !isAgentTurn(job) {
		return v.with(Undecidable, ReasonInvalidPayload)
	}

	// 2-3. Delivery plan (explicit, or built from legacy hints, or announce/last).
	d := deliveryOf(job)
	v.Mode = d.mode
	switch d.mode {
	case "none":
		return v.with(InChat, ReasonNoDelivery)
	case "webhook":
		v.Target = Route{Channel: "webhook", To: d.to, Source: "delivery"}
		return v.with(Elsewhere, ReasonWebhook)
	}

	// 5. Owner agent of the key; a job of another agent is undecidable.
	jobAgent := ""
	if a, ok := job.StringOf("agentId"); ok && strings.TrimSpace(a) != "" {
		jobAgent = NormalizeAgentID(a)
	}
	k := parseKey(v.Key, cfg)
	v.KeyAgent = k.agent
	if v.KeyAgent == "" {
		v.KeyAgent = firstNonEmpty(jobAgent, cfg.defaultAgent())
	}
	if jobAgent != "" && jobAgent != v.KeyAgent {
		return v.with(Undecidable, ReasonAgentMismatch)
	}

	// 6. Route of the key.
	v.KeyRoute = keyRoute(v.Key, k, v.KeyAgent, ix)
	ch := planChannel(d)
	if v.KeyRoute.empty() || v.KeyRoute.To == "" {
		return classifyWithoutKeyRoute(v, d, ch, k, ix, cfg)
	}

	// 9. sourceConversation (newer OpenClaw) resolves "last" through its own key.
	lastRoute := v.KeyRoute
	if r, ok := sourceConversationRoute(job, v, ix, cfg); ok {
		lastRoute = r
		v.Notes = append(v.Notes, "source-conversation-override")
	}

	// 7. Effective target.
	v.Target, v.Inherited = resolveTarget(d, ch, lastRoute)
	if v.Target.Channel == "" {
		return v.with(Undecidable, ReasonNoRoute)
	}

	// 8. Compare with the key's route (OpenClaw's share-route rule).
	return compareWithKeyRoute(v, d)
}

// with is v with its class and reason set.
func (v Verdict) with(c Classification, r Reason) Verdict {
	v.Class, v.Reason = c, r
	return v
}

// planChannel is the channel the plan asks for ("last" = resolve through a
// session).
func planChannel(d plan) string {
	ch := strings.ToLower(d.channel)
	if ch == "" || ch == "last" {
		if p := providerPrefix(d.to); p != "" {
			ch = p
		} else {
			ch = "last"
		}
	}
	return ch
}

// classifyWithoutKeyRoute decides a job whose key has no known chat route,
// from the shape of the key and the agent's main session.
func classifyWithoutKeyRoute(v Verdict, d plan, ch string, k parsedKey, ix SessionIndex, cfg Config) Verdict {
	mainRoute := EntryRoute(ix.Lookup(v.KeyAgent, "agent:"+v.KeyAgent+":"+cfg.mainKey()))
	mainRoute.Source = "main-session"
	switch {
	case k.kind == keyMain && ch == "last":
		return v.with(InChat, ReasonMainSession)
	case k.kind == keyNamed:
		// OpenClaw falls back to the agent's main session: a chat that is not <key>.
		v.Target, v.Inherited = resolveTarget(d, ch, mainRoute)
		if ch == "last" && mainRoute.empty() {
			return v.with(Undecidable, ReasonNoRoute)
		}
		return v.with(Elsewhere, ReasonNamedNoChatRoute)
	case k.kind == keyChat && ch != "last" && ch != k.channel:
		v.KeyRoute = Route{Channel: k.channel, Source: "key-shape"}
		v.Target, v.Inherited = resolveTarget(d, ch, mainRoute)
		return v.with(Elsewhere, ReasonChannelDiffers)
	default:
		return v.with(Undecidable, ReasonKeyRouteUnkown)
	}
}

// sourceConversationRoute is the route of the job's sourceConversation
// session key, when it names another session with a known route.
func sourceConversationRoute(job *jsondoc.Value, v Verdict, ix SessionIndex, cfg Config) (Route, bool) {
	sc, ok := job.Get("sourceConversation").StringOf("sessionKey")
	if !ok || strings.TrimSpace(sc) == "" || strings.TrimSpace(sc) == v.Key {
		return Route{}, false
	}
	sck := parseKey(strings.TrimSpace(sc), cfg)
	if r := keyRoute(strings.TrimSpace(sc), sck, v.KeyAgent, ix); !r.empty() {
		return r, true
	}
	return Route{}, false
}

// compareWithKeyRoute compares the effective target with the key's route
// (OpenClaw's share-route rule).
func compareWithKeyRoute(v Verdict, d plan) Verdict {
	if v.Target.Channel != v.KeyRoute.Channel {
		return v.with(Elsewhere, ReasonChannelDiffers)
	}
	tTo, tThread := normalizeTo(v.Target.Channel, v.Target.To)
	kTo, kThread := normalizeTo(v.KeyRoute.Channel, v.KeyRoute.To)
	if v.Target.ThreadID != "" {
		tThread = v.Target.ThreadID
	}
	if v.KeyRoute.ThreadID != "" {
		kThread = v.KeyRoute.ThreadID
	}
	if tTo != kTo {
		if strings.EqualFold(tTo, kTo) {
			return v.with(Undecidable, ReasonCaseOnly)
		}
		return v.with(Elsewhere, ReasonRecipientDiffers)
	}
	if tThread != "" && kThread != "" && tThread != kThread {
		return v.with(Elsewhere, ReasonThreadDiffers)
	}
	if a, b := normalizeAccount(v.Target.AccountID), normalizeAccount(v.KeyRoute.AccountID); a != "" && b != "" && a != b {
		return v.with(Elsewhere, ReasonAccountDiffers)
	}
	// The job names the chat itself but no thread while <key> pins one:
	// OpenClaw's share-route rule says same conversation (it may even inherit
	// the thread); Hermes would call it another lane. Reported, left alone.
	if _, ownThread := normalizeTo(v.Target.Channel, d.to); kThread != "" && d.to != "" && d.threadID == "" && ownThread == "" {
		return v.with(InChat, ReasonThreadUnspecified)
	}
	return v.with(InChat, ReasonSameRoute)
}

func isAgentTurn(job *jsondoc.Value) bool {
	p := job.Get("payload")
	if p == nil {
		// Legacy rows keep the message at top level; OpenClaw's doctor infers agentTurn.
		_, msg := job.StringOf("message")
		return msg
	}
	kind, _ := p.StringOf("kind")
	return strings.EqualFold(strings.TrimSpace(kind), "agentTurn")
}

// plan is a job's delivery as OpenClaw's resolveCronDeliveryPlan reads it.
type plan struct {
	explicit  bool // a delivery object (or legacy hints) exists
	mode      string
	channel   string
	to        string
	accountID string
	threadID  string
}

func deliveryOf(job *jsondoc.Value) plan {
	str := func(v *jsondoc.Value, key string) string {
		s, _ := v.StringOf(key)
		return strings.TrimSpace(s)
	}
	if d := job.Get("delivery"); d != nil && d.Kind == jsondoc.Object {
		p := plan{explicit: true, channel: str(d, "channel"), to: str(d, "to"), accountID: str(d, "accountId"), threadID: threadString(d.Get("threadId"))}
		switch strings.ToLower(str(d, "mode")) {
		case "webhook":
			p.mode = "webhook"
		case "none":
			p.mode = "none"
		default: // announce, deliver, missing or unknown
			p.mode = "announce"
		}
		return p
	}
	// Legacy delivery hints (payload first, then the top-level copies).
	payload := job.Get("payload")
	hint := func(key string) *jsondoc.Value {
		if v := payload.Get(key); v != nil {
			return v
		}
		return job.Get(key)
	}
	keys := []string{"deliver", "channel", "provider", "to", "bestEffortDeliver", "threadId"}
	found := false
	for _, k := range keys {
		if hint(k) != nil {
			found = true
		}
	}
	if !found {
		return plan{mode: "announce", channel: "last"}
	}
	p := plan{explicit: true, mode: "announce"}
	if dv := hint("deliver"); dv != nil && dv.Kind == jsondoc.Bool && !dv.Bool {
		p.mode = "none"
	}
	if c := hint("channel"); c != nil && c.Kind == jsondoc.String && strings.TrimSpace(c.Str) != "" {
		p.channel = strings.TrimSpace(c.Str)
	} else if c := hint("provider"); c != nil && c.Kind == jsondoc.String {
		p.channel = strings.TrimSpace(c.Str)
	}
	if t := hint("to"); t != nil && t.Kind == jsondoc.String {
		p.to = strings.TrimSpace(t.Str)
	}
	p.threadID = threadString(hint("threadId"))
	return p
}

// resolveTarget is OpenClaw's target resolution against one session route:
// explicit fields win; "last" and missing fields come from the route when the
// channels agree. It returns the target and the fields that were inherited.
func resolveTarget(d plan, ch string, r Route) (Route, []string) {
	var t Route
	var inh []string
	t.Source = "delivery"
	if ch == "last" {
		t.Channel = r.Channel
		if t.Channel != "" {
			inh = append(inh, "channel")
		}
	} else {
		t.Channel = ch
	}
	same := t.Channel != "" && t.Channel == r.Channel
	t.To = d.to
	if t.To == "" && same && r.To != "" {
		t.To = r.To
		inh = append(inh, "to")
	}
	t.AccountID = d.accountID
	if t.AccountID == "" && same && r.AccountID != "" {
		t.AccountID = r.AccountID
		inh = append(inh, "accountId")
	}
	t.ThreadID = d.threadID
	if t.ThreadID == "" {
		_, t.ThreadID = normalizeTo(t.Channel, d.to)
	}
	if t.ThreadID == "" && same && r.ThreadID != "" {
		a, _ := normalizeTo(t.Channel, t.To)
		b, _ := normalizeTo(r.Channel, r.To)
		if a == b {
			t.ThreadID = r.ThreadID
			inh = append(inh, "threadId")
		}
	}
	if len(inh) > 0 && ch == "last" {
		t.Source = r.Source
	}
	return t, inh
}

type keyKind int

const (
	keyNamed keyKind = iota // no channel segment: a named session, no chat route of its own
	keyMain                 // the agent main session (or global)
	keyChat                 // <channel>:(direct|group|channel|dm):<peer>...
	keyOther                // cron:, subagent:, hook:, dashboard...
)

type parsedKey struct {
	agent   string // from agent:<id>:..., normalised; "" when the key has no agent prefix
	rest    []string
	kind    keyKind
	channel string // for chat keys
	base    string // the key without its :thread:/:topic: suffix ("" when none)
	thread  string // thread id parsed from the key (routable only)
}

var chatKinds = map[string]bool{"direct": true, "group": true, "channel": true, "dm": true}

func parseKey(key string, cfg Config) parsedKey {
	var k parsedKey
	lower := strings.ToLower(key)
	parts := strings.Split(lower, ":")
	if len(parts) >= 3 && parts[0] == "agent" {
		k.agent = NormalizeAgentID(parts[1])
		k.rest = parts[2:]
	} else {
		k.rest = parts
	}
	switch {
	case lower == "global" || (len(k.rest) == 1 && k.rest[0] == cfg.mainKey()):
		k.kind = keyMain
	case len(k.rest) >= 3 && (chatKinds[k.rest[1]] || (len(k.rest) >= 4 && chatKinds[k.rest[2]])):
		k.kind = keyChat
		k.channel = k.rest[0]
	case len(k.rest) >= 1 && (k.rest[0] == "cron" || k.rest[0] == "subagent" || k.rest[0] == "hook" || k.rest[0] == "dashboard" || k.rest[0] == "explicit"):
		k.kind = keyOther
	default:
		k.kind = keyNamed
	}
	// Thread suffix (a trailing :sender:<id> is ignored).
	for _, marker := range []string{":topic:", ":thread:"} {
		i := strings.LastIndex(lower, marker)
		if i < 0 {
			continue
		}
		id := key[i+len(marker):]
		if j := strings.Index(strings.ToLower(id), ":sender:"); j >= 0 {
			id = id[:j]
		}
		k.base = key[:i]
		// Telegram DM :thread: suffixes are not routable thread ids.
		if marker == ":thread:" && k.channel == "telegram" {
			break
		}
		k.thread = id
		break
	}
	return k
}

// keyRoute is R_K: the key's session entry in its owner agent's store (exact,
// lowercased, canonical agent:<id>:<key> form), falling back to the base key
// when the thread entry has no recipient; the key's thread id wins.
func keyRoute(key string, k parsedKey, agent string, ix SessionIndex) Route {
	lookup := func(key string) Route {
		cands := []string{key, strings.ToLower(key)}
		if k.agent == "" {
			cands = append(cands, "agent:"+agent+":"+strings.ToLower(key))
		}
		for _, c := range cands {
			if e := ix.Lookup(agent, c); e != nil {
				return EntryRoute(e)
			}
		}
		return Route{}
	}
	r := lookup(key)
	if r.To == "" && k.base != "" {
		if b := lookup(k.base); !b.empty() {
			r = b
		}
	}
	if k.thread != "" && !r.empty() {
		r.ThreadID = k.thread
	}
	return r
}

// Provider prefixes a delivery "to" may carry ("telegram:123"). Kind
// prefixes (channel:, user:, dm:, ...) are part of the target, never a provider.
var providerPrefixes = map[string]string{
	"telegram": "telegram", "tg": "telegram", "discord": "discord", "slack": "slack",
	"whatsapp": "whatsapp", "signal": "signal", "matrix": "matrix", "msteams": "msteams",
	"googlechat": "googlechat", "mattermost": "mattermost", "feishu": "feishu", "lark": "feishu",
	"line": "line", "zalo": "zalo", "irc": "irc", "nostr": "nostr", "bluebubbles": "bluebubbles",
	"twitch": "twitch", "nextcloud-talk": "nextcloud-talk", "synology-chat": "synology-chat",
}

var prefixRe = lazyre.New(`^\s*([A-Za-z][A-Za-z0-9_-]*):`)

func providerPrefix(to string) string {
	m := prefixRe().FindStringSubmatch(to)
	if m == nil {
		return ""
	}
	return providerPrefixes[strings.ToLower(m[1])]
}

var telegramTopic = lazyre.New(`(?i)^(.*?):topic:(\d+)$`)
var telegramShort = lazyre.New(`^(-?\d+):(\d+)$`)

// normalizeTo strips a provider prefix that names the channel itself and, for
// Telegram, splits a :topic:<n> (or :<n>) suffix into the thread id.
func normalizeTo(channel, to string) (string, string) {
	to = strings.TrimSpace(to)
	if m := prefixRe().FindStringSubmatch(to); m != nil && providerPrefixes[strings.ToLower(m[1])] == channel {
		to = strings.TrimSpace(to[len(m[0]):])
		if channel == "telegram" && len(to) > 6 && strings.EqualFold(to[:6], "group:") {
			to = to[6:]
		}
	}
	if channel == "telegram" {
		if m := telegramTopic().FindStringSubmatch(to); m != nil {
			return m[1], m[2]
		}
		if m := telegramShort().FindStringSubmatch(to); m != nil {
			return m[1], m[2]
		}
	}
	return to, ""
}

func normalizeAccount(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// legacyShapes lists the row shapes that OpenClaw's own doctor rewrites
// (research §10.6); doctor leaves such rows to it.
func legacyShapes(job *jsondoc.Value) []string {
	var out []string
	if _, ok := job.StringOf("id"); !ok {
		if job.Has("jobId") {
			out = append(out, "legacy `jobId` instead of `id`")
		} else {
			out = append(out, "no string `id`")
		}
	}
	if st, _ := job.StringOf("sessionTarget"); !strings.HasPrefix(st, "session:") {
		out = append(out, "sessionTarget prefix not exactly `session:`")
	}
	if s := job.Get("schedule"); s == nil || s.Kind != jsondoc.Object {
		out = append(out, "schedule is not an object")
	} else if s.Has("cron") || s.Has("atMs") {
		out = append(out, "legacy schedule fields")
	}
	if p := job.Get("payload"); p == nil || p.Kind != jsondoc.Object {
		out = append(out, "no payload object")
	} else {
		if k, _ := p.StringOf("kind"); k != "agentTurn" {
			out = append(out, "payload kind needs normalisation")
		}
		for _, f := range []string{"deliver", "channel", "to", "provider", "bestEffortDeliver"} {
			if p.Has(f) {
				out = append(out, "legacy delivery fields in payload")
				break
			}
		}
	}
	for _, f := range []string{"message", "text", "deliver", "channel", "to", "provider", "threadId", "bestEffortDeliver", "model", "thinking", "timeoutSeconds", "allowUnsafeExternalContent"} {
		if job.Has(f) {
			out = append(out, "top-level payload/delivery fields")
			break
		}
	}
	if job.Has("isolation") {
		out = append(out, "legacy `isolation` field")
	}
	if e := job.Get("enabled"); e != nil && e.Kind != jsondoc.Bool {
		out = append(out, "`enabled` is not a boolean")
	}
	if d := job.Get("delivery"); d != nil && d.Kind != jsondoc.Object {
		out = append(out, "delivery is not an object")
	} else if m, _ := d.StringOf("mode"); strings.EqualFold(m, "deliver") {
		out = append(out, "delivery mode `deliver`")
	}
	return out
}
