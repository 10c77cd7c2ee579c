package conformance

import "github.com/e2e-conform/toolkit/conformance/report"

// Result is a run's outcome (conformance/report renders, merges and
// compares it): the verdict and exit code, and every requirement's status.
type Result = report.Result
