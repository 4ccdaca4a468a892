package doctor

import (
	"fmt"

	"github.com/openclaw-tools/oc/pkg/repair"
)

// checkRepairFiles reports, as one info finding, how many files oc
// repair's runs keep in the state dir (backups, their manifests,
// quarantine files, run records) and their size: they are never removed
// automatically, and `oc repair --prune-backups` is how to.
func (d *run) checkRepairFiles() {
	arts, err := repair.FindArtifacts(repair.ArtifactRoots(d.opts.StateDir))
	if err != nil || len(arts) == 0 {
		return
	}
	var size int64
	for _, a := range arts {
		size += a.Size
	}
	d.add(Finding{ID: "oc-repair-files", Severity: SevInfo, Path: repair.ArtifactRoots(d.opts.StateDir)[0], Section: SectionLocks,
		Message: fmt.Sprintf("%d %s kept by oc repair (backups, manifests, quarantine files, run records): %s, the oldest from %s",
			len(arts), plural(len(arts), "file", "files"), sizeText(size), arts[0].Time.UTC().Format("2006-01-02")),
		Fix: "oc repair --prune-backups --older-than 30d --dry-run lists those older than 30 days; without --dry-run it removes them"})
}

// sizeText is a size for the message: KiB under a MiB, else MiB.
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1023)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
