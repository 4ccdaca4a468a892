package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

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
	// the job is left alone.
	Command []string `json:"command,omitempty"`
	// Ran, Output: what --fix --yes did with Command.
	Ran    bool   `json:"ran,omitempty"`
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
}

// SQLiteCronReport is the cron part of doctor in the SQLite era.
type SQLiteCronReport struct {
	Jobs []SQLiteCronJob `json:"jobs"`
	// OpenClaw is the openclaw command found on PATH ("" when absent).
	OpenClaw string `json:"openclaw,omitempty"`
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
		sj := SQLiteCronJob{ID: j.ID, Name: j.Name, StoreKey: j.StoreKey, Enabled: j.Enabled, SessionTarget: target}
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
// left alone.
func FixCommand(id string, v Verdict) []string {
	switch v.Class {
	case InChat:
		return []string{"openclaw", "automations", "edit", id, "--session", "current", "--session-key", v.Key}
	case Elsewhere:
		cmd := []string{"openclaw", "automations", "edit", id, "--session", "isolated", "--session-key", v.Key}
		if v.Mode != "webhook" {
			if v.Target.Channel != "" {
				cmd = append(cmd, "--channel", v.Target.Channel)
			}
			if v.Target.To != "" {
				cmd = append(cmd, "--to", v.Target.To)
			}
			if v.Target.AccountID != "" {
				cmd = append(cmd, "--account", v.Target.AccountID)
			}
			if v.Target.ThreadID != "" {
				cmd = append(cmd, "--thread-id", v.Target.ThreadID)
			}
		}
		return cmd
	}
	return nil
}

// ApplySQLiteCronFixes runs each job's command through the openclaw CLI found
// on PATH (never a shell, never SQL). Without openclaw nothing runs.
func ApplySQLiteCronFixes(rep *SQLiteCronReport, lookPath func(string) (string, error), run func(path string, args []string) ([]byte, error)) {
	bin, err := lookPath("openclaw")
	if err != nil {
		return
	}
	rep.OpenClaw = bin
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		if len(j.Command) == 0 {
			continue
		}
		out, err := run(bin, j.Command[1:])
		j.Ran, j.Output = true, strings.TrimSpace(string(out))
		if err != nil {
			j.Error = err.Error()
		}
	}
}

// RunCommand runs an argv without a shell.
func RunCommand(path string, args []string) ([]byte, error) {
	return exec.Command(path, args...).CombinedOutput() //nolint:gosec // argv built by FixCommand
}
