package doctor_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/doctor"
	"github.com/openclaw-tools/oc/pkg/store"
)

type oracleCronJob struct {
	Job struct {
		ID string `json:"id"`
	} `json:"job"`
	Validation string `json:"validation"`
	Session    struct {
		Kind                 string `json:"kind"`
		RunsIn               string `json:"runsIn"`
		WritesChatTranscript bool   `json:"writesChatTranscript"`
	} `json:"session"`
}

func oracleCron(t *testing.T, fixture string) map[string]oracleCronJob {
	t.Helper()
	f, err := os.Open(filepath.Join(oracletest.SharedDir(t), "oracle-2026.9.6", "fixtures", fixture, "golden.jsonl"))
	if err != nil {
		oracletest.Unavailable(t, fmt.Sprintf("the 9.6 oracle's cron fixture: %v", err))
	}
	defer f.Close()
	out := map[string]oracleCronJob{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var g struct {
			Mode string `json:"mode"`
			Out  struct {
				Stores []struct {
					Jobs []oracleCronJob `json:"jobs"`
				} `json:"stores"`
			} `json:"out"`
		}
		if json.Unmarshal(sc.Bytes(), &g) != nil || g.Mode != "cron" {
			continue
		}
		for _, s := range g.Out.Stores {
			for _, j := range s.Jobs {
				out[j.Job.ID] = j
			}
		}
	}
	return out
}

// The classification read from cron_jobs.job_json agrees with where 2026.9.6
// runs each job (the oracle's `cron` mode): exactly the jobs 9.6 runs inside
// a chat session (kind "session", writing that chat's transcript) are
// classified, on that chat's key, and each gets a command that moves it off
// the chat transcript (IN_CHAT -> current + sessionKey, ELSEWHERE -> isolated).
func TestSQLiteCronAgreesWithOracle(t *testing.T) {
	compared, classified, wantJobs, wantClassified := 0, 0, 0, 0
	for _, fx := range oracletest.Fixtures96() {
		want := oracleCron(t, fx)
		wantJobs += len(want)
		for _, o := range want {
			if o.Session.Kind == "session" && o.Session.WritesChatTranscript {
				wantClassified++
			}
		}
		st, err := store.Open(oracletest.Fixture96State(t, fx), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := doctor.ClassifySQLiteCron(t.Context(), st, doctor.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Jobs) != len(want) {
			t.Errorf("%s: %d cron_jobs rows, oracle loads %d jobs", fx, len(rep.Jobs), len(want))
		}
		for _, j := range rep.Jobs {
			o, ok := want[j.ID]
			if !ok {
				t.Errorf("%s: job %s not in the oracle's answer", fx, j.ID)
				continue
			}
			compared++
			inChatSession := o.Session.Kind == "session" && o.Session.WritesChatTranscript
			if inChatSession != (j.Classification != "") {
				t.Errorf("%s %s: oracle kind %s (writes chat %v), oc classification %q", fx, j.ID, o.Session.Kind, o.Session.WritesChatTranscript, j.Classification)
			}
			if j.Classification == "" {
				if j.Command != nil {
					t.Errorf("%s %s: a %s job gets a command %v", fx, j.ID, o.Session.Kind, j.Command)
				}
				continue
			}
			classified++
			if !strings.EqualFold(j.Key, o.Session.RunsIn) {
				t.Errorf("%s %s: oc key %q, 9.6 runs it in %q", fx, j.ID, j.Key, o.Session.RunsIn)
			}
			cmd := strings.Join(j.Command, " ")
			switch j.Classification {
			case doctor.InChat:
				if !strings.Contains(cmd, "--session=current --session-key="+j.Key+" -- "+j.ID) {
					t.Errorf("%s %s: IN_CHAT command %q", fx, j.ID, cmd)
				}
			case doctor.Elsewhere:
				if !strings.Contains(cmd, "--session=isolated") || !strings.HasSuffix(cmd, " -- "+j.ID) {
					t.Errorf("%s %s: ELSEWHERE command %q", fx, j.ID, cmd)
				}
			case doctor.Undecidable:
				if j.Command != nil {
					t.Errorf("%s %s: UNDECIDABLE job gets a command", fx, j.ID)
				}
			}
			t.Logf("%s %s %s/%s: %s", fx, j.ID, j.Classification, j.Reason, cmd)
		}
	}
	oracletest.Compared(t, "SQLite cron jobs vs the 2026.9.6 oracle's cron answers (every job it loads)", compared, wantJobs)
	oracletest.Compared(t, "SQLite cron jobs classified vs those 2026.9.6 runs in a chat session", classified, wantClassified)
}
