package doctor
import ("testing";"fmt")
func TestDbg(t *testing.T){
 for _, c := range []TranscriptCheck{RepairCheck, OwnershipCheck} {
  fs, err := c("/tmp/corpusstate"); fmt.Println(len(fs), err)
  for _, f := range fs { fmt.Println(f.ID, f.Severity, f.Message) }
 }
}
