package serve

import "fmt"

// A SettingError is a Config setting no server runs with (Validate). It
// names the fields at odds by their Go names and values (Error); a caller
// that sets them otherwise (mpdf serve's flags, a config file) writes the
// same message in its own words for each field (Words).
type SettingError struct {
	// Settings are the fields at odds: the first is the one wrong, a
	// second the one it is compared with.
	Settings []Setting
	format   string // the message, a %s per setting
	args     []any  // the message's figures after the settings
}

// A Setting is one field of Config and its value: an int64 number of
// bytes (MaxBodyBytes, MaxMemory), a time.Duration or an int.
type Setting struct {
	Field string
	Value any
}

func (e *SettingError) Error() string {
	return e.Words(func(s Setting) string { return fmt.Sprintf("Config.%s %v", s.Field, s.Value) })
}

// Words writes the error with each setting as name writes it.
func (e *SettingError) Words(name func(Setting) string) string {
	args := make([]any, 0, len(e.Settings)+len(e.args))
	for _, s := range e.Settings {
		args = append(args, name(s))
	}
	return "serve: " + fmt.Sprintf(e.format, append(args, e.args...)...)
}

// settingErr is a SettingError of one field or two.
func settingErr(format string, settings []Setting, args ...any) error {
	return &SettingError{Settings: settings, format: format, args: args}
}

// one is the setting of field at v.
func one(field string, v any) []Setting { return []Setting{{field, v}} }
