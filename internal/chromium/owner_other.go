//go:build !unix

package chromium

import "io/fs"

// ownedByMe cannot tell the owner here: nothing is swept.
func ownedByMe(fs.FileInfo) bool { return false }

// ownerAlive cannot tell here: every owner counts as alive.
func ownerAlive(int, uint64) bool { return true }
