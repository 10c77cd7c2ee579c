package server_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

func exampleTransport(bool) transport.Transport {
	return server.LoopbackTransport(example.New(), server.Options{})
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
