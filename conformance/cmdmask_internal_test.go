package conformance

import (
	"strings"
	"testing"
)

// TestMaskCommand: the engine command shown in reports and spec names
// hides the values where credentials are passed, and keeps the rest.
func TestMaskCommand(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"./engine", "--headless"}, "./engine --headless"},
		{[]string{"e2e-web-engine", "--cdp-endpoint", "ws://pool:3000/chrome?token=tok-SECRET-9d2f&launch=x"},
			"e2e-web-engine --cdp-endpoint ws://pool:3000/chrome?token=[redacted]&launch=[redacted]"},
		{[]string{"e2e-web-engine", "--cdp-endpoint=wss://u:hunter2@pool/x"}, "e2e-web-engine --cdp-endpoint=wss://u:[redacted]@pool/x"},
		{[]string{"engine", "--api-key", "AKIA123", "--port", "9"}, "engine --api-key [redacted] --port 9"},
		{[]string{"engine", "--token=abc", "--auth-header=Bearer x"}, "engine --token=[redacted] --auth-header=[redacted]"},
		{[]string{"env", "E2E_TOKEN=abc", "PATH=/bin", "engine"}, "env E2E_TOKEN=[redacted] PATH=/bin engine"},
		{[]string{"engine", "--password", "--verbose"}, "engine --password --verbose"},
		{[]string{"engine", "--key", "k1", "--monkey", "m"}, "engine --key [redacted] --monkey m"},
	}
	for _, tc := range tests {
		got := strings.Join(maskCommand(tc.argv), " ")
		if got != tc.want {
			t.Errorf("maskCommand(%q)\n got %s\nwant %s", tc.argv, got, tc.want)
		}
		for _, secret := range []string{"tok-SECRET-9d2f", "hunter2", "AKIA123", "abc"} {
			if strings.Contains(got, secret) {
				t.Errorf("maskCommand(%q) shows %q", tc.argv, secret)
			}
		}
	}
}
