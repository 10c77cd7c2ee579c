//go:build !unix

package mutate

import "os"

// lockFile is a no-op where flock is missing: a Once mutant may then fire
// once per concurrent connection.
func lockFile(*os.File) func() { return func() {} }
