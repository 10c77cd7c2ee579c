package conformance

// unexpected is ids without those the run's baseline lists: fail-fast
// stops only at a failure the baseline does not expect.
func (s *suite) unexpected(ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, listed := s.cfg.ExpectedFailures[id]; !listed {
			out = append(out, id)
		}
	}
	return out
}
