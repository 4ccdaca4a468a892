// Command oc inspects, repairs and migrates the state an OpenClaw gateway keeps on disk.
package main

import (
	"os"

	"github.com/openclaw-tools/oc/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
