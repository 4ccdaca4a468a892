package doctor

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openclaw-tools/oc/internal/jsondoc"
	"github.com/openclaw-tools/oc/pkg/store"
)

// SQLiteCronJob is one cron_jobs row classified like a jobs.json job, with
// the OpenClaw command that applies the fix (contract §7). oc never writes
// SQL: the fix goes through OpenClaw's own CLI.
type SQLiteCronJob struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	StoreKey       string         `json:"storeKey"`
	Enabled        bool           `json:"enabled"`
	SessionTarget  string         `json:"sessionTarget"`
	Classification Classification `json:"classification,omitempty"`
	Reason         Reason         `json:"reason,omitempty"`
	Key            string         `json:"key,omitempty"`
	Target         Route          `json:"target"`
	// Command is the fix as argv (openclaw automations edit ...); empty when
	// the job is left alone. It acts on this install only with the report's
	// OpenClawEnv (docs/doctor-fix.md).
	Command []string `json:"command,omitempty"`
	// Fix is what --fix did with Command (nil without --fix).
	Fix *CronFixResult `json:"fix,omitempty"`
	// Error is why the row could not be classified.
	Error string `json:"error,omitempty"`
	// Stored is the row's job_json as read (what --fix verifies openclaw
	// sees before it edits).
	Stored json.RawMessage `json:"-"`
}

// SQLiteCronReport is the cron part of doctor in the SQLite era.
type SQLiteCronReport struct {
	Jobs []SQLiteCronJob `json:"jobs"`
	// OpenClaw is the openclaw command found on PATH ("" when absent).
	OpenClaw string `json:"openclaw,omitempty"`
	// OpenClawEnv is the environment the commands need to act on this
	// install (OPENCLAW_STATE_DIR, OPENCLAW_CONFIG_PATH), as KEY=VALUE.
	OpenClawEnv []string `json:"openclawEnv,omitempty"`
	// Fix is what --fix did with the commands (nil without --fix).
	Fix *CronFixRun `json:"fix,omitempty"`
	// Error is why cron_jobs could not be read ("" when it was).
	Error string `json:"error,omitempty"`
}

// SQLiteIndex builds the classifier's session index from the agent
// databases' session_nodes (9.6 entry_json: delivery {kind, route, context,
// origin}, mapped onto the JSON era's deliveryContext/origin fields).
func SQLiteIndex(sessions []store.Session) SessionIndex {
	var ix SessionIndex
	byAgent := map[string]*jsondoc.Value{}
	for _, s := range sessions {
		if s.Era != store.EraSQLite || s.Key == "" {
			continue
		}
		entry := legacyEntry(s.Index)
		doc := byAgent[s.Agent]
		if doc == nil {
			doc = jsondoc.NewObject()
			byAgent[s.Agent] = doc
		}
		doc.Members = append(doc.Members, jsondoc.Member{Key: s.Key, Value: entry})
	}
	for agent, doc := range byAgent {
		ix.Add(NormalizeAgentID(agent), doc)
	}
	return ix
}

// legacyEntry turns a 9.6 session entry into the fields EntryRoute reads.
func legacyEntry(raw json.RawMessage) *jsondoc.Value {
	var e struct {
		Delivery struct {
			Route struct {
				Channel   string `json:"channel"`
				AccountID string `json:"accountId"`
				Target    struct {
					To       string `json:"to"`
					ThreadID any    `json:"threadId"`
				} `json:"target"`
			} `json:"route"`
			Context json.RawMessage `json:"context"`
			Origin  json.RawMessage `json:"origin"`
		} `json:"delivery"`
	}
	_ = json.Unmarshal(raw, &e)
	obj := map[string]any{}
	if len(e.Delivery.Context) > 0 {
		obj["deliveryContext"] = e.Delivery.Context
	}
	if len(e.Delivery.Origin) > 0 {
		obj["origin"] = e.Delivery.Origin
	}
	r := e.Delivery.Route
	if r.Channel != "" {
		obj["lastChannel"] = r.Channel
	}
	if r.Target.To != "" {
		obj["lastTo"] = r.Target.To
	}
	if r.AccountID != "" {
		obj["lastAccountId"] = r.AccountID
	}
	if r.Target.ThreadID != nil {
		obj["lastThreadId"] = fmt.Sprint(r.Target.ThreadID)
	}
	b, _ := json.Marshal(obj)
	v, _, err := jsondoc.Parse(b)
	if err != nil || v == nil {
		return jsondoc.NewObject()
	}
	return v
}

// ClassifySQLiteCron classifies every cron_jobs row of the state dir.
func ClassifySQLiteCron(ctx context.Context, st *store.State, cfg Config) (*SQLiteCronReport, error) {
	jobs, err := st.CronJobs(ctx)
	if err != nil {
		return nil, err
	}
	sessions, err := st.SQLiteSessions(ctx)
	if err != nil {
		return nil, err
	}
	ix := SQLiteIndex(sessions)
	rep := &SQLiteCronReport{Jobs: []SQLiteCronJob{}}
	for _, j := range jobs {
		v, _, err := jsondoc.Parse(j.Job)
		if err != nil || v == nil {
			rep.Jobs = append(rep.Jobs, SQLiteCronJob{ID: j.ID, Name: j.Name, StoreKey: j.StoreKey, Enabled: j.Enabled, Error: "job_json does not parse"})
			continue
		}
		target, _ := v.StringOf("sessionTarget")
		sj := SQLiteCronJob{ID: j.ID, Name: j.Name, StoreKey: j.StoreKey, Enabled: j.Enabled, SessionTarget: target, Stored: j.Job}
		verdict := Classify(v, ix, cfg)
		sj.Classification, sj.Reason, sj.Key, sj.Target = verdict.Class, verdict.Reason, verdict.Key, verdict.Target
		sj.Command = FixCommand(j.ID, verdict)
		rep.Jobs = append(rep.Jobs, sj)
	}
	return rep, nil
}

// FixCommand is the OpenClaw 2026.9.6 command that applies contract §7's fix:
// an IN_CHAT session:<key> job becomes `current` with sessionKey <key> (9.6
// runs it detached and posts only the final reply to the chat); an ELSEWHERE
// job becomes `isolated` with the route it had made explicit. nil for jobs
// left alone. Values from the state dir are never separate arguments: each
// option is one "--name=value" word and the id comes after "--", so that no
// value or id can be read as another option (9.6's CLI scans every argument
// before "--" for --profile, --dev and --container).
func FixCommand(id string, v Verdict) []string {
	var cmd []string
	switch v.Class {
	case InChat:
		cmd = []string{"openclaw", "automations", "edit", "--session=current", "--session-key=" + v.Key}
	case Elsewhere:
		cmd = []string{"openclaw", "automations", "edit", "--session=isolated", "--session-key=" + v.Key}
		if v.Mode != "webhook" {
			for _, opt := range []struct{ flag, value string }{
				{"--channel=", v.Target.Channel}, {"--to=", v.Target.To},
				{"--account=", v.Target.AccountID}, {"--thread-id=", v.Target.ThreadID},
			} {
				if opt.value != "" {
					cmd = append(cmd, opt.flag+opt.value)
				}
			}
		}
	default:
		return nil
	}
	return append(cmd, "--", id)
}
