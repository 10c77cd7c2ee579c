package server

// SetAtCap makes the server tell fn each time a connection stops reading
// at its in-flight cap.
func SetAtCap(o *Options, fn func(inFlight int)) { o.atCap = fn }
