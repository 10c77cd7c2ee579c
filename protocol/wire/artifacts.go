package wire

import "encoding/json"

// EngineState is an opaque captured state (spec §5.10).
type EngineState struct {
	Format    string          `json:"format"`
	Version   float64         `json:"version"`
	Data      json.RawMessage `json:"data"`
	ExpiresAt string          `json:"expiresAt,omitempty"`
}

// VideoSegment is a VideoFile (Path set) or a VideoLink (URL set) (spec §5.10).
type VideoSegment struct {
	Path      string
	URL       string
	MediaType string
	StartedAt string
}

// MarshalJSON writes a VideoFile or a VideoLink.
func (v VideoSegment) MarshalJSON() ([]byte, error) {
	w := newObject()
	if v.URL != "" {
		w.put("url", v.URL)
		w.put("mediaType", v.MediaType)
	} else {
		w.put("path", v.Path)
	}
	w.put("startedAt", v.StartedAt)
	return w.bytes()
}

// UnmarshalJSON reads a VideoFile or a VideoLink.
func (v *VideoSegment) UnmarshalJSON(data []byte) error {
	t := VideoSegment{}
	m, err := members(data, t)
	if err != nil {
		return err
	}
	var out VideoSegment
	if _, ok := m["url"]; ok {
		err = firstErr(field(m, t, "url", &out.URL, true), field(m, t, "mediaType", &out.MediaType, true))
	} else if _, ok := m["path"]; ok {
		err = field(m, t, "path", &out.Path, true)
	} else {
		return unionError(t, "", "VideoSegment needs path (a VideoFile) or url (a VideoLink)")
	}
	if err == nil {
		err = field(m, t, "startedAt", &out.StartedAt, true)
	}
	if err != nil {
		return err
	}
	*v = out
	return nil
}

// AppLogEntry is one line the app logged (spec §5.10).
type AppLogEntry struct {
	Source string `json:"source"` // console, error, network, system
	Level  string `json:"level"`  // error, warning, info
	Text   string `json:"text"`
}

// ScreenshotResult is {path} or {data, mediaType} (spec §5.10, §4.16).
type ScreenshotResult struct {
	Path      string
	Data      string
	MediaType string
}

// MarshalJSON writes exactly one of the two forms.
func (s ScreenshotResult) MarshalJSON() ([]byte, error) {
	w := newObject()
	if s.Path != "" {
		w.put("path", s.Path)
	} else {
		w.put("data", s.Data)
		mt := s.MediaType
		if mt == "" {
			mt = "image/png"
		}
		w.put("mediaType", mt)
	}
	return w.bytes()
}

// UnmarshalJSON reads exactly one of the two forms.
func (s *ScreenshotResult) UnmarshalJSON(data []byte) error {
	t := ScreenshotResult{}
	m, err := members(data, t)
	if err != nil {
		return err
	}
	_, hasPath := m["path"]
	_, hasData := m["data"]
	var out ScreenshotResult
	switch {
	case hasPath && hasData:
		return unionError(t, "", "screenshot result has both path and data")
	case hasPath:
		err = field(m, t, "path", &out.Path, true)
	case hasData:
		err = firstErr(field(m, t, "data", &out.Data, true), field(m, t, "mediaType", &out.MediaType, true))
	default:
		return unionError(t, "", "screenshot result needs path or data")
	}
	if err != nil {
		return err
	}
	*s = out
	return nil
}
