package doctor

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/jsondoc"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/openclawconfig"
)

// Config is the part of OpenClaw's configuration the classifier needs.
type Config struct {
	DefaultAgentID string // agents.list default (else first, else "main")
	MainKey        string // session.mainKey, default "main"
	SessionStore   string // session.store template ("" = agents/<id>/sessions/sessions.json)
	CronStore      string // cron.store ("" = <stateDir>/cron/jobs.json)
	Path           string // the config file read, "" when none
}

func (c Config) defaultAgent() string {
	if c.DefaultAgentID == "" {
		return "main"
	}
	return NormalizeAgentID(c.DefaultAgentID)
}

func (c Config) mainKey() string {
	if k := strings.ToLower(strings.TrimSpace(c.MainKey)); k != "" {
		return k
	}
	return "main"
}

// LoadConfig reads OpenClaw's config (openclawconfig: $OPENCLAW_CONFIG_PATH,
// <stateDir>/openclaw.json or the legacy clawdbot.json), JSON5 like
// OpenClaw. A missing file gives the defaults.
func LoadConfig(stateDir string, env func(string) string) (Config, error) {
	var cfg Config
	file, err := openclawconfig.Load(stateDir, env, func(p string) (*jsondoc.Value, error) {
		_, root, _, err := readDoc(p, DefaultMaxStoreBytes)
		return root, err
	})
	if err != nil || file.Root == nil {
		return cfg, err
	}
	cfg.Path = file.Path
	if list := file.Get("agents", "list"); list != nil && list.Kind == jsondoc.Array {
		var chosen *jsondoc.Value
		for _, a := range list.Items {
			if d := a.Get("default"); d != nil && truthy(d) {
				chosen = a
				break
			}
		}
		if chosen == nil && len(list.Items) > 0 {
			chosen = list.Items[0]
		}
		if id, ok := chosen.StringOf("id"); ok {
			cfg.DefaultAgentID = NormalizeAgentID(id)
		}
	}
	cfg.MainKey, _ = file.String("session", "mainKey")
	cfg.SessionStore, _ = file.String("session", "store")
	cfg.CronStore, _ = file.String("cron", "store")
	return cfg, nil
}

func truthy(v *jsondoc.Value) bool {
	switch v.Kind {
	case jsondoc.Bool:
		return v.Bool
	case jsondoc.Number:
		return v.Num != 0
	case jsondoc.String:
		return v.Str != ""
	case jsondoc.Null:
		return false
	default:
		return true
	}
}

var validAgentID = lazyre.New(`^[a-z0-9][a-z0-9_-]{0,63}$`)
var invalidAgentChars = lazyre.New(`[^a-z0-9_-]+`)

// NormalizeAgentID is OpenClaw's normalizeAgentId.
func NormalizeAgentID(s string) string {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return "main"
	}
	if validAgentID().MatchString(t) {
		return t
	}
	t = strings.Trim(invalidAgentChars().ReplaceAllString(t, "-"), "-")
	if len(t) > 64 {
		t = t[:64]
	}
	if t == "" {
		return "main"
	}
	return t
}

// SessionIndex holds the sessions.json entries of every agent, keyed by
// normalised agent id, then session key.
type SessionIndex struct {
	Agents map[string]map[string]*jsondoc.Value
}

// Lookup returns agent's entry for key.
func (ix SessionIndex) Lookup(agentID, key string) *jsondoc.Value {
	if ix.Agents == nil {
		return nil
	}
	return ix.Agents[agentID][key]
}

// IndexFromValue builds one agent's part of an index from a parsed sessions.json.
func (ix *SessionIndex) Add(agentID string, doc *jsondoc.Value) {
	if ix.Agents == nil {
		ix.Agents = map[string]map[string]*jsondoc.Value{}
	}
	m := ix.Agents[agentID]
	if m == nil {
		m = map[string]*jsondoc.Value{}
		ix.Agents[agentID] = m
	}
	if doc == nil || doc.Kind != jsondoc.Object {
		return
	}
	for _, mem := range doc.Members {
		if mem.Value.Kind == jsondoc.Object {
			m[mem.Key] = mem.Value
		}
	}
}

// ListAgents returns the agent ids that have a directory under <stateDir>/agents.
func ListAgents(stateDir string) []string {
	entries, err := os.ReadDir(filepath.Join(stateDir, "agents"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Route is where a message goes: channel, recipient, account, thread.
type Route struct {
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
	// Source: "session-entry", "key-shape", "delivery", "main-session".
	Source string `json:"source,omitempty"`
}

func (r Route) empty() bool { return r.Channel == "" && r.To == "" }

// String renders channel:to[#thread].
func (r Route) String() string {
	s := r.Channel
	if r.To != "" {
		if s != "" && providerPrefix(r.To) == r.Channel {
			s = r.To // "telegram:123", not "telegram:telegram:123"
		} else {
			if s != "" {
				s += ":"
			}
			s += r.To
		}
	}
	if _, th := normalizeTo(r.Channel, r.To); r.ThreadID != "" && th != r.ThreadID {
		s += " thread " + r.ThreadID
	}
	if r.AccountID != "" && r.AccountID != "default" {
		s += " (account " + r.AccountID + ")"
	}
	return s
}

// EntryRoute is OpenClaw's deliveryContextFromSession: the last* fields (with
// origin fallbacks) merged field by field with deliveryContext; when the two
// name different channels the fallback gives only the channel.
func EntryRoute(entry *jsondoc.Value) Route {
	if entry == nil || entry.Kind != jsondoc.Object {
		return Route{}
	}
	str := func(v *jsondoc.Value, key string) string {
		x := v.Get(key)
		switch {
		case x == nil:
			return ""
		case x.Kind == jsondoc.String:
			return strings.TrimSpace(x.Str)
		case x.Kind == jsondoc.Number:
			return jsjson.FormatNumber(x.Num)
		}
		return ""
	}
	origin := entry.Get("origin")
	dc := entry.Get("deliveryContext")
	primary := Route{
		Channel:   firstNonEmpty(str(entry, "lastChannel"), str(entry, "channel"), str(origin, "provider")),
		To:        str(entry, "lastTo"),
		AccountID: firstNonEmpty(str(entry, "lastAccountId"), str(origin, "accountId")),
		ThreadID:  firstNonEmpty(str(entry, "lastThreadId"), str(dc, "threadId"), str(origin, "threadId")),
	}
	primary.Channel = strings.ToLower(primary.Channel)
	fallback := Route{Channel: strings.ToLower(str(dc, "channel")), To: str(dc, "to"), AccountID: str(dc, "accountId"), ThreadID: str(dc, "threadId")}
	if primary.empty() && primary.Channel == "" {
		primary = Route{}
	}
	r := primary
	conflict := primary.Channel != "" && fallback.Channel != "" && primary.Channel != fallback.Channel
	if r.Channel == "" {
		r.Channel = fallback.Channel
	}
	if !conflict {
		if r.To == "" {
			r.To = fallback.To
		}
		if r.AccountID == "" {
			r.AccountID = fallback.AccountID
		}
		if r.ThreadID == "" {
			r.ThreadID = fallback.ThreadID
		}
	}
	if r.Channel == "" && r.To == "" {
		return Route{}
	}
	r.Source = "session-entry"
	return r
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// threadString renders a delivery threadId (string or number) as a string.
func threadString(v *jsondoc.Value) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case jsondoc.String:
		return strings.TrimSpace(v.Str)
	case jsondoc.Number:
		return jsjson.FormatNumber(v.Num)
	}
	return ""
}
